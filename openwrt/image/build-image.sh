#!/usr/bin/env bash
# Build the WiSlice OpenWrt packages with an OpenWrt SDK and an image with them with the matching ImageBuilder.
# Both tarballs come from downloads.openwrt.org (same release, same target/subtarget); see openwrt/README.md.
#
#   build-image.sh --sdk SDK_TARBALL --imagebuilder IB_TARBALL --profile PROFILE
#                  [--files DIR] [--packages "pkg -pkg ..."] [--work DIR] [--jobs N] [--dry-run]
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
FEED_DIR="$(cd "$HERE/../feed" && pwd)"
WISLICE_SRC_DIR="$(cd "$HERE/../.." && pwd)"
WISLICE_PACKAGES=(wislice-ap-agent wislice-pofswitch)

sdk="" ib="" profile="" files="" extra="" work="" dry_run=0
jobs="$(nproc 2>/dev/null || echo 2)"

usage() {
	sed -n '2,6s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
}

die() {
	echo "build-image.sh: $*" >&2
	exit 2
}

# run CMD...: print it, then run it unless --dry-run.
run() {
	printf '+'
	printf ' %q' "$@"
	printf '\n'
	[ "$dry_run" = 1 ] || "$@"
}

while [ $# -gt 0 ]; do
	case "$1" in
		--sdk) sdk="${2-}"; shift 2 || die "--sdk needs a value" ;;
		--imagebuilder) ib="${2-}"; shift 2 || die "--imagebuilder needs a value" ;;
		--profile) profile="${2-}"; shift 2 || die "--profile needs a value" ;;
		--files) files="${2-}"; shift 2 || die "--files needs a value" ;;
		--packages) extra="${2-}"; shift 2 || die "--packages needs a value" ;;
		--work) work="${2-}"; shift 2 || die "--work needs a value" ;;
		--jobs) jobs="${2-}"; shift 2 || die "--jobs needs a value" ;;
		--dry-run) dry_run=1; shift ;;
		-h | --help) usage; exit 0 ;;
		*) die "unknown argument $1 (see --help)" ;;
	esac
done

if [ -z "$sdk" ] || [ -z "$ib" ] || [ -z "$profile" ]; then
	usage >&2
	die "--sdk, --imagebuilder and --profile are required"
fi
for t in "$sdk" "$ib"; do
	[ -f "$t" ] || die "no such file: $t"
done
sdk_base="$(basename "$sdk")"
ib_base="$(basename "$ib")"
case "$sdk_base" in openwrt-sdk-*.tar.xz | openwrt-sdk-*.tar.zst) ;; *) die "$sdk_base is not an OpenWrt SDK tarball (openwrt-sdk-*.tar.xz|zst)" ;; esac
case "$ib_base" in openwrt-imagebuilder-*.tar.xz | openwrt-imagebuilder-*.tar.zst) ;; *) die "$ib_base is not an OpenWrt ImageBuilder tarball (openwrt-imagebuilder-*.tar.xz|zst)" ;; esac
# openwrt-sdk-<release>-<target>-<subtarget>_gcc-..._musl.Linux-x86_64 vs openwrt-imagebuilder-<release>-<target>-<subtarget>.Linux-x86_64
sdk_id="${sdk_base#openwrt-sdk-}"
sdk_id="${sdk_id%%_gcc-*}"
ib_id="${ib_base#openwrt-imagebuilder-}"
ib_id="${ib_id%%.Linux-*}"
[ "$sdk_id" = "$ib_id" ] || die "SDK ($sdk_id) and ImageBuilder ($ib_id) are for different releases or targets"
case "$profile" in "" | *[!A-Za-z0-9_,.-]*) die "bad --profile '$profile' (see 'make info' in the ImageBuilder)" ;; esac
case "$extra" in *[!A-Za-z0-9_.+\ -]*) die "bad --packages '$extra'" ;; esac
case "$jobs" in "" | *[!0-9]*) die "bad --jobs '$jobs'" ;; esac
if [ -n "$files" ]; then
	[ -d "$files" ] || die "--files $files is not a directory"
	files="$(cd "$files" && pwd)"
fi
work="${work:-$PWD/wislice-openwrt-$sdk_id}"
mkdir -p "$work"
work="$(cd "$work" && pwd)"

echo "== WiSlice feed $FEED_DIR (sources $WISLICE_SRC_DIR) -> $work"

echo "== 1. SDK: extract, add the feed, build the packages"
if [ ! -x "$work/sdk/scripts/feeds" ]; then
	run mkdir -p "$work/sdk"
	run tar -xf "$sdk" -C "$work/sdk" --strip-components=1
fi
if [ "$dry_run" = 1 ]; then
	echo "+ (feeds.conf.default + 'src-link wislice $FEED_DIR') > $work/sdk/feeds.conf"
else
	{
		grep -v '^src-link wislice ' "$work/sdk/feeds.conf.default"
		printf 'src-link wislice %s\n' "$FEED_DIR"
	} >"$work/sdk/feeds.conf"
fi
run "$work/sdk/scripts/feeds" update -a
run "$work/sdk/scripts/feeds" install -p wislice "${WISLICE_PACKAGES[@]}"
run make -C "$work/sdk" defconfig
for p in "${WISLICE_PACKAGES[@]}"; do
	if [ "$dry_run" = 1 ]; then
		echo "+ echo CONFIG_PACKAGE_$p=m >> $work/sdk/.config"
	else
		echo "CONFIG_PACKAGE_$p=m" >>"$work/sdk/.config"
	fi
done
run make -C "$work/sdk" defconfig
for p in "${WISLICE_PACKAGES[@]}"; do
	run make -C "$work/sdk" -j"$jobs" "package/$p/compile" WISLICE_SRC_DIR="$WISLICE_SRC_DIR"
done

echo "== 2. ImageBuilder: extract, add the packages, build the image"
if [ ! -f "$work/ib/Makefile" ]; then
	run mkdir -p "$work/ib"
	run tar -xf "$ib" -C "$work/ib" --strip-components=1
fi
run mkdir -p "$work/ib/packages"
if [ "$dry_run" = 1 ]; then
	echo "+ cp $work/sdk/bin/packages/*/wislice/*.{ipk,apk} $work/ib/packages/"
else
	built="$(find "$work/sdk/bin/packages" -path '*/wislice/*' \( -name '*.ipk' -o -name '*.apk' \) -print)"
	[ -n "$built" ] || die "the SDK built no wislice packages (see the make output above)"
	# shellcheck disable=SC2086
	cp $built "$work/ib/packages/"
fi
image_packages="${WISLICE_PACKAGES[*]} $extra"
run make -C "$work/ib" image PROFILE="$profile" PACKAGES="$image_packages" BIN_DIR="$work/images" \
	${files:+FILES="$files"}

echo "== done: images in $work/images"
[ "$dry_run" = 1 ] || ls -l "$work/images"
