# Shared by the GitHub Action's step scripts (actions/action-policy-rev,
# actions/action-fetch-measured, actions/action-check); sourced, not run.  bash.
#
# The checkout the action gates, and every git command it runs, are fixed
# here so that nothing the pull request committed can choose them:
#
#   - mg_checkout_top finds the checkout from the working-directory input,
#     on the path as written (never resolving symlinks first): the
#     directory must lie inside $GITHUB_WORKSPACE, the checkout is the
#     nearest directory at or above it that holds a real .git directory (a
#     submodule, whose .git is a file, is refused: its checkout is not the
#     submodule's repository), and the directory must resolve inside that
#     checkout and the checkout to itself; a symlink that leads anywhere
#     else is refused.  A commit cannot contain a path
#     named .git (git refuses it), so a repository planted as plain files
#     (ml/HEAD, ml/objects/, ml/config) is never taken for the checkout.
#   - mg_git runs git with GIT_DIR and GIT_WORK_TREE set to that checkout
#     (no discovery from a directory the pull request controls), without
#     the system config, and with every setting that runs a command turned
#     off on the command line: fsmonitor, hooks, credential helpers, askpass,
#     ssh command, the ext:: transport, submodule recursion and automatic
#     maintenance.  safe.directory names the checkout itself, never '*'.

unset CDPATH

# mg_annotate LEVEL MESSAGE: a workflow command, the message escaped as
# @actions/core escapeData does (% CR LF), so that it stays one command.
mg_annotate() {
	local msg=$2
	msg=${msg//'%'/'%25'}
	msg=${msg//$'\r'/'%0D'}
	msg=${msg//$'\n'/'%0A'}
	printf '::%s::%s\n' "$1" "$msg"
}

mg_fail() {
	mg_annotate error "memgate: $1"
	return 1
}

# mg_checkout_top: set $top to the checkout's top level (see the header);
# false, having said why, when there is none.
mg_checkout_top() {
	local ws dir logical real d rtop
	ws=${GITHUB_WORKSPACE:-$PWD}
	if ! ws=$(cd -P -- "$ws" 2>/dev/null && pwd -P); then
		mg_fail "the workspace '${GITHUB_WORKSPACE:-$PWD}' is not a directory"
		return 1
	fi
	dir=${MEMGATE_DIR:-.}
	case $dir in /*) ;; *) dir=$ws/$dir ;; esac
	# The path as written ('..' taken away lexically), not resolved: a
	# symlink the pull request committed must not choose the checkout.
	if ! logical=$(cd -L -- "$dir" 2>/dev/null && pwd -L) ||
	   ! real=$(cd -P -- "$dir" 2>/dev/null && pwd -P); then
		mg_fail "input 'working-directory' ('${MEMGATE_DIR:-.}') is not a directory"
		return 1
	fi
	case $logical/ in
	"$ws"/*) ;;
	*) mg_fail "input 'working-directory' ('${MEMGATE_DIR:-.}') is '$logical', outside the workspace '$ws'"
	   return 1 ;;
	esac
	d=$logical
	while [ ! -d "$d/.git" ] || [ -L "$d/.git" ]; do
		if [ -f "$d/.git" ] && [ ! -L "$d/.git" ]; then
			# a submodule's work tree (.git is a file git wrote): the
			# checkout above it is another repository, whose policy
			# would be gated without a word
			mg_fail "input 'working-directory' ('${MEMGATE_DIR:-.}') is inside a submodule ('${d#"$ws"/}'), not a checkout of its own: memgate gates a checkout, not a submodule of it; check the submodule's repository out on its own (actions/checkout with repository: and path:) and point working-directory there"
			return 1
		fi
		if [ "$d" = "$ws" ] || [ -z "$d" ]; then
			mg_fail "no checkout (a directory holding .git) at or above '${MEMGATE_DIR:-.}' in the workspace; check the repository out with actions/checkout first"
			return 1
		fi
		d=${d%/*}
	done
	# The checkout itself, and the directory inside it, are what the path
	# names: no symlink leads out of it (to another checkout, say).
	rtop=$(cd -P -- "$d" 2>/dev/null && pwd -P) || rtop=
	case $real/ in
	"$d"/*) [ "$rtop" = "$d" ] ;;
	*) false ;;
	esac || {
		mg_fail "input 'working-directory' ('${MEMGATE_DIR:-.}') leads through a symlink to '$real', outside the checkout; name a directory inside the checkout, without symlinks that lead out of it"
		return 1
	}
	top=$d
}

# mg_git ARGS...: git on the checkout $top, as described in the header.
mg_git() (
	unset GIT_ASKPASS SSH_ASKPASS GIT_SSH GIT_SSH_COMMAND GIT_PROXY_COMMAND \
	      GIT_EXTERNAL_DIFF GIT_CONFIG_PARAMETERS GIT_CONFIG_COUNT \
	      GIT_CEILING_DIRECTORIES GIT_INDEX_FILE GIT_OBJECT_DIRECTORY \
	      GIT_ALTERNATE_OBJECT_DIRECTORIES GIT_COMMON_DIR GIT_NAMESPACE
	export GIT_DIR="$top/.git" GIT_WORK_TREE="$top" GIT_CONFIG_NOSYSTEM=1 \
	       GIT_TERMINAL_PROMPT=0
	exec git -c safe.directory="$top" \
	    -c core.fsmonitor=false -c core.hooksPath=/dev/null \
	    -c core.askPass= -c credential.helper= -c core.sshCommand=ssh \
	    -c protocol.ext.allow=never \
	    -c fetch.recurseSubmodules=false -c submodule.recurse=false \
	    -c maintenance.auto=false -c gc.auto=0 -c fetch.writeCommitGraph=false \
	    "$@"
)

# mg_fetch_url: print the URL to fetch a commit of this repository from:
# the workflow's repository on its server, else the checkout's origin.
mg_fetch_url() {
	if [ -n "${GITHUB_SERVER_URL:-}" ] && [ -n "${GITHUB_REPOSITORY:-}" ]; then
		printf '%s/%s\n' "$GITHUB_SERVER_URL" "$GITHUB_REPOSITORY"
	else
		mg_git config --get remote.origin.url
	fi
}

# mg_fetch_commit URL ID: fetch commit ID (a full id) alone, depth 1, from
# URL into the checkout, with mg_git; false when it is not had after.
mg_fetch_commit() {
	mg_git fetch --quiet --no-tags --no-recurse-submodules --no-write-fetch-head \
		--depth=1 --upload-pack=git-upload-pack -- "$1" "$2" &&
		mg_git cat-file -e "$2^{commit}" 2>/dev/null
}
