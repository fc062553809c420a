#!/bin/sh
# Build fixture repositories with the real git CLI, at test time, into a
# scratch directory (no .git directory is ever committed to memgate).
#
#   tests/fixture-repo.sh KIND DIR
#
# KIND is one of:
#   basic     DIR/repo: two commits on main (tag v1 and branch 'old' on the
#             first), report.json (version 1, then 2), dir/deep/file.txt,
#             a symlink link.json -> report.json, a gitlink 'sub', an
#             executable run.sh and a Git LFS pointer big.bin
#   detached  DIR/repo as basic, with HEAD detached at v1
#   worktree  DIR/repo as basic, plus a linked worktree DIR/wt on branch
#             'feature' with a third commit (report.json version 3)
#   bare      DIR/repo as basic, plus DIR/bare.git (git clone --bare)
#   shallow   DIR/repo as basic, plus DIR/shallow (git clone --depth 1)
#   shallow-history  DIR/history: report.json changed by the first two
#             commits, then two commits of notes.txt only; DIR/history-2, a
#             clone of it at depth 2 (its boundary the first notes commit)
#   sha256    DIR/sha256: one commit in a SHA-256 object-format repository
#   empty     DIR/empty: git init, no commit
#   owned     DIR/repo as basic, plus DIR/owned: a copy owned by 'nobody'
#             (needs root)
#   planted   DIR/repo as basic, plus DIR/host: a repository whose commit
#             holds DIR/bare.git's files as plain files under 'ml/' (a
#             planted bare repository), checked out
#
# Commits have fixed authors and dates, and git reads no global or system
# config, so ids do not depend on the machine.  DIR must exist; several
# kinds may be built into the same DIR (DIR/repo is built once).
set -eu

usage() {
	echo "usage: $0 basic|detached|worktree|bare|shallow|shallow-history|sha256|empty|owned|planted DIR" >&2
	exit 2
}

[ $# -eq 2 ] || usage
kind=$1
dir=$2
[ -d "$dir" ] || { echo "$0: '$dir' is not a directory" >&2; exit 2; }
dir=$(cd "$dir" && pwd)

GIT_CONFIG_GLOBAL=/dev/null
GIT_CONFIG_NOSYSTEM=1
GIT_AUTHOR_NAME=memgate-fixture
GIT_AUTHOR_EMAIL=fixture@memgate.invalid
GIT_AUTHOR_DATE='2024-01-01T00:00:00Z'
GIT_COMMITTER_NAME=$GIT_AUTHOR_NAME
GIT_COMMITTER_EMAIL=$GIT_AUTHOR_EMAIL
GIT_COMMITTER_DATE=$GIT_AUTHOR_DATE
export GIT_CONFIG_GLOBAL GIT_CONFIG_NOSYSTEM GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL \
	GIT_AUTHOR_DATE GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL GIT_COMMITTER_DATE
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY 2>/dev/null || :

g() {
	git -c init.defaultBranch=main -c commit.gpgsign=false -c tag.gpgsign=false \
		-c core.autocrlf=false -c core.symlinks=true "$@"
}

commit() {
	g -C "$1" add -A
	g -C "$1" commit -q -m "$2"
}

lfs_pointer() {
	printf 'version https://git-lfs.github.com/spec/v1\n'
	printf 'oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n'
	printf 'size 12345\n'
}

make_basic() {
	r=$dir/repo
	[ ! -e "$r" ] || return 0    # several kinds may share DIR/repo
	g init -q "$r"
	mkdir -p "$r/dir/deep"
	printf '{"version": 1}\n' >"$r/report.json"
	printf 'deep\n' >"$r/dir/deep/file.txt"
	commit "$r" "first"
	g -C "$r" tag -a -m "v1" v1
	g -C "$r" branch old

	printf '{"version": 2}\n' >"$r/report.json"
	ln -s report.json "$r/link.json"
	printf '#!/bin/sh\necho run\n' >"$r/run.sh"
	chmod 755 "$r/run.sh"
	lfs_pointer >"$r/big.bin"
	g -C "$r" add -A
	first=$(g -C "$r" rev-parse HEAD)
	g -C "$r" update-index --add --cacheinfo "160000,$first,sub"
	mkdir "$r/sub"    # an unpopulated submodule, as after a plain clone
	g -C "$r" commit -q -m "second"
}

make_worktree() {
	make_basic
	g -C "$dir/repo" worktree add -q -b feature "$dir/wt"
	printf '{"version": 3}\n' >"$dir/wt/report.json"
	commit "$dir/wt" "third, on feature"
}

make_sha256() {
	g init -q --object-format=sha256 "$dir/sha256"
	printf 'x\n' >"$dir/sha256/report.json"
	commit "$dir/sha256" "first"
}

case $kind in
basic)
	make_basic ;;
detached)
	make_basic
	g -C "$dir/repo" checkout -q --detach v1 ;;
worktree)
	make_worktree ;;
bare)
	make_basic
	g clone -q --bare "$dir/repo" "$dir/bare.git" ;;
shallow)
	make_basic
	g clone -q --depth 1 "file://$dir/repo" "$dir/shallow" ;;
shallow-history)
	h=$dir/history
	g init -q "$h"
	for v in 1 2; do printf '{"version": %s}\n' $v >"$h/report.json"; commit "$h" "report $v"; done
	for n in 1 2; do echo $n >"$h/notes.txt"; commit "$h" "notes $n"; done
	g clone -q --depth 2 "file://$h" "$dir/history-2" ;;
sha256)
	make_sha256 ;;
empty)
	g init -q "$dir/empty" ;;
owned)
	make_basic
	cp -a "$dir/repo" "$dir/owned"
	chown -R nobody "$dir/owned" ;;
planted)
	make_basic
	[ -d "$dir/bare.git" ] || g clone -q --bare "$dir/repo" "$dir/bare.git"
	g init -q "$dir/host"
	cp -R "$dir/bare.git" "$dir/host/ml"
	printf 'host\n' >"$dir/host/README"
	commit "$dir/host" "plant a repository under ml/" ;;
*)
	usage ;;
esac
