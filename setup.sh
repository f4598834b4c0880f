# setup.sh: sourced by demo.sh and check.sh. Installs the Debian build
# dependencies that are missing (as root; otherwise prints the apt-get line
# and stops), bootstraps, configures and builds in $TC_BUILD (default
# _build/).
#
#   setup_build [configure arguments...]

# python3-anndata: tests/h5layout.sh reads /matrix with it; python3-scipy
# and jq: the man pages' EXAMPLES use them (tests/man-examples.sh).
# libgraphblas-dev: bench/cpu.sh's competitor (bench/graphblas-spmm).
# libcairo2-dev and fonts-dejavu-core: the text around tcplot's pictures.
# python3-torch and python3-pytest: the Python package's tests
# (tests/python.sh; torch.sparse.mm is their reference).
# libzip-dev and libjansson-dev: SciPy .npz archives and binsparse's JSON
# descriptor (lib/npz.c, lib/binsparse.c).
# bsdutils: script(1), a terminal for tcmul's progress bar (tests/tcmul.sh).
TC_DEB_PACKAGES="autoconf automake libtool pkg-config make gcc libc6-dev
  libhdf5-dev hdf5-tools libpng-dev zlib1g-dev libzip-dev libjansson-dev python3
  python3-h5py python3-numpy python3-scipy python3-anndata jq libgraphblas-dev
  libcairo2-dev fonts-dejavu-core python3-torch python3-pytest bsdutils"

tc_missing_packages() {
    local p missing=""
    for p in $TC_DEB_PACKAGES; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
            missing="$missing $p"
    done
    echo "$missing"
}

tc_install_dependencies() {
    command -v dpkg-query >/dev/null || {
        echo "setup: not a Debian system: install by hand the equivalents of:" $TC_DEB_PACKAGES >&2
        return 0
    }
    local missing
    missing=$(tc_missing_packages)
    [ -z "$missing" ] && return 0
    if [ "$(id -u)" -ne 0 ]; then
        echo "setup: missing build dependencies; as root, run:" >&2
        echo "  apt-get update && apt-get install -y$missing" >&2
        exit 1
    fi
    echo "setup: apt-get install -y$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq $missing >/dev/null ||
        { echo "setup: apt-get failed" >&2; exit 1; }
}

setup_build() {
    local b=${TC_BUILD:-_build}
    tc_install_dependencies
    if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt configure ]; then
        echo "setup: bootstrapping"
        ./bootstrap >/dev/null 2>&1 || { ./bootstrap; exit 1; }
    fi
    mkdir -p "$b"
    local want="$*" have=""
    [ -f "$b/.configure-args" ] && have=$(cat "$b/.configure-args")
    if [ ! -f "$b/Makefile" ] || [ "$want" != "$have" ] || [ configure -nt "$b/Makefile" ]; then
        echo "setup: configuring${want:+ ($want)}"
        (cd "$b" && ../configure -q "$@") || exit 1
        echo "$want" > "$b/.configure-args"
    fi
    echo "setup: building in $b/"
    make -s -C "$b" -j"$(nproc 2>/dev/null || echo 2)" || exit 1
}
