#!/usr/bin/env bash
# Build an OpenWrt image for WiSlice APs with an ImageBuilder the integrator downloaded and extracted, the WiSlice
# packages (from a directory of .ipk files, or compiled here by the matching OpenWrt SDK) and the fleet's settings:
# controller address, shared secret, TLS material. See openwrt/README.md, "Building an image".
#
#   build-image.sh --imagebuilder DIR --profile PROFILE --controller HOST --secret FILE
#                  (--tls-ca FILE [--tls-cert FILE --tls-key FILE] [--tls-server-name NAME] | --no-tls)
#                  (--ipk-dir DIR | --sdk SDK_TARBALL) [--files DIR] [--packages "pkg -pkg ..."] [--work DIR]
#                  [--jobs N] [--dry-run]
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
FEED_DIR="$(cd "$HERE/../feed" && pwd)"
WISLICE_SRC_DIR="$(cd "$HERE/../.." && pwd)"
WISLICE_PACKAGES=(wislice-ap-agent wislice-pofswitch)
# Where the overlay puts the fleet's keys: the ap-agent's UCI defaults (secret_file) and the TLS options.
KEY_DIR=/etc/wislice

ib="" profile="" controller="" secret="" tls_ca="" tls_cert="" tls_key="" tls_name="" no_tls=0
ipk_dir="" sdk="" files="" extra="" work="" dry_run=0
jobs="$(nproc 2>/dev/null || echo 2)"

usage() {
	sed -n '6,9s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
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

# need_file WHAT PATH: a readable, non-empty file.
need_file() {
	[ -e "$2" ] || die "$1: no such file: $2"
	{ [ -f "$2" ] && [ -r "$2" ]; } || die "$1: not a readable file: $2"
	[ -s "$2" ] || die "$1: $2 is empty"
}

while [ $# -gt 0 ]; do
	case "$1" in
		--imagebuilder) ib="${2-}"; shift 2 || die "--imagebuilder needs a value" ;;
		--profile) profile="${2-}"; shift 2 || die "--profile needs a value" ;;
		--controller) controller="${2-}"; shift 2 || die "--controller needs a value" ;;
		--secret) secret="${2-}"; shift 2 || die "--secret needs a value" ;;
		--tls-ca) tls_ca="${2-}"; shift 2 || die "--tls-ca needs a value" ;;
		--tls-cert) tls_cert="${2-}"; shift 2 || die "--tls-cert needs a value" ;;
		--tls-key) tls_key="${2-}"; shift 2 || die "--tls-key needs a value" ;;
		--tls-server-name) tls_name="${2-}"; shift 2 || die "--tls-server-name needs a value" ;;
		--no-tls) no_tls=1; shift ;;
		--ipk-dir) ipk_dir="${2-}"; shift 2 || die "--ipk-dir needs a value" ;;
		--sdk) sdk="${2-}"; shift 2 || die "--sdk needs a value" ;;
		--files) files="${2-}"; shift 2 || die "--files needs a value" ;;
		--packages) extra="${2-}"; shift 2 || die "--packages needs a value" ;;
		--work) work="${2-}"; shift 2 || die "--work needs a value" ;;
		--jobs) jobs="${2-}"; shift 2 || die "--jobs needs a value" ;;
		--dry-run) dry_run=1; shift ;;
		-h | --help) usage; exit 0 ;;
		*) die "unknown argument $1 (see --help)" ;;
	esac
done

# --- arguments --------------------------------------------------------------------------------------------------
if [ -z "$ib" ] || [ -z "$profile" ] || [ -z "$controller" ] || [ -z "$secret" ]; then
	usage >&2
	die "--imagebuilder, --profile, --controller and --secret are required"
fi
case "$ib" in
	*.tar.xz | *.tar.zst | *.tar.gz) die "$ib is a tarball: extract it first (tar -xf $ib) and give the directory" ;;
esac
[ -d "$ib" ] || die "--imagebuilder $ib: no such directory"
ib="$(cd "$ib" && pwd)"
if [ ! -f "$ib/Makefile" ] || ! grep -q '^image:' "$ib/Makefile" || [ ! -f "$ib/.config" ]; then
	die "$ib is not an OpenWrt ImageBuilder (want its Makefile with an image target and its .config): give the extracted openwrt-imagebuilder-* directory"
fi
# the ImageBuilder's target, from its .config
config_value() {
	sed -n "s/^$1=\"\{0,1\}\([^\"]*\)\"\{0,1\}\$/\1/p" "$ib/.config" | head -n 1
}
board="$(config_value CONFIG_TARGET_BOARD)"
subtarget="$(config_value CONFIG_TARGET_SUBTARGET)"
arch="$(config_value CONFIG_TARGET_ARCH_PACKAGES)"
{ [ -n "$board" ] && [ -n "$arch" ]; } || die "$ib/.config names no target (CONFIG_TARGET_BOARD, CONFIG_TARGET_ARCH_PACKAGES)"
if [ "$(config_value CONFIG_USE_APK)" = y ]; then
	die "$ib builds with apk packages (OpenWrt 25 and later); the WiSlice packages are .ipk: use a 24.10 ImageBuilder"
fi
case "$profile" in "" | -* | *[!A-Za-z0-9_,.-]*) die "bad --profile '$profile' (see 'make info' in the ImageBuilder)" ;; esac
case "$controller" in
	"" | -* | *[!A-Za-z0-9.:-]*) die "bad --controller '$controller': a host name or an IP address (no port)" ;;
esac
[ "${#controller}" -le 253 ] || die "--controller is longer than a host name may be"
case "$tls_name" in -* | *[!A-Za-z0-9.-]*) die "bad --tls-server-name '$tls_name'" ;; esac
case "$extra" in *[!A-Za-z0-9_.+\ -]*) die "bad --packages '$extra'" ;; esac
case "$jobs" in "" | *[!0-9]*) die "bad --jobs '$jobs'" ;; esac
need_file --secret "$secret"
if [ "$no_tls" = 1 ]; then
	[ -z "$tls_ca$tls_cert$tls_key$tls_name" ] || die "--no-tls with --tls-* options"
else
	[ -n "$tls_ca" ] || die "--tls-ca FILE is required (the CA the controllers' certificates chain to), or --no-tls"
	need_file --tls-ca "$tls_ca"
	if [ -n "$tls_cert$tls_key" ]; then
		{ [ -n "$tls_cert" ] && [ -n "$tls_key" ]; } || die "--tls-cert and --tls-key go together"
		need_file --tls-cert "$tls_cert"
		need_file --tls-key "$tls_key"
	fi
fi
if [ -n "$ipk_dir" ] && [ -n "$sdk" ]; then
	die "--ipk-dir and --sdk: give one"
elif [ -n "$ipk_dir" ]; then
	[ -d "$ipk_dir" ] || die "--ipk-dir $ipk_dir: no such directory"
	ipk_dir="$(cd "$ipk_dir" && pwd)"
elif [ -n "$sdk" ]; then
	[ -f "$sdk" ] || die "--sdk $sdk: no such file"
	case "$(basename "$sdk")" in openwrt-sdk-*.tar.xz | openwrt-sdk-*.tar.zst) ;; *) die "$sdk is not an OpenWrt SDK tarball (openwrt-sdk-*.tar.xz|zst)" ;; esac
else
	die "--ipk-dir DIR (the WiSlice .ipk files for $arch) or --sdk SDK_TARBALL (to compile them) is required"
fi
if [ -n "$files" ]; then
	[ -d "$files" ] || die "--files $files is not a directory"
	files="$(cd "$files" && pwd)"
fi
# the profile must be one of the ImageBuilder's: `make info` lists them as "NAME:" lines
profiles="$(make -s -C "$ib" info 2>/dev/null | sed -n 's/^\([A-Za-z0-9_,.-]\{1,\}\):$/\1/p')" ||
	die "'make -C $ib info' failed: is this ImageBuilder complete?"
[ -n "$profiles" ] || die "'make -C $ib info' lists no profiles: is this ImageBuilder complete?"
if ! printf '%s\n' "$profiles" | grep -qxF -- "$profile"; then
	die "profile '$profile' is not in this ImageBuilder ($board/$subtarget); it has: $(printf '%s\n' "$profiles" | head -n 20 | tr '\n' ' ')"
fi
work="${work:-$PWD/wislice-openwrt-$board-$subtarget}"
mkdir -p "$work"
work="$(cd "$work" && pwd)"
echo "== WiSlice image: $board/$subtarget ($arch), profile $profile, controller $controller -> $work"

# --- 1. the packages ------------------------------------------------------------------------------------------------
if [ -n "$sdk" ]; then
	echo "== 1. SDK: extract, add the feed ($FEED_DIR), build the packages"
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
	ipk_dir="$work/sdk/bin/packages/$arch/wislice"
else
	echo "== 1. packages from $ipk_dir"
fi

# One .ipk per WiSlice package, for this target: ARCH all or the ImageBuilder's ARCH_PACKAGES.
chosen=()
if [ "$dry_run" != 1 ] || [ -z "$sdk" ]; then
	for p in "${WISLICE_PACKAGES[@]}"; do
		found=()
		for f in "$ipk_dir/${p}_"*.ipk; do
			[ -f "$f" ] && found+=("$f")
		done
		[ "${#found[@]}" -gt 0 ] || die "no ${p}_*.ipk in $ipk_dir (build them: make -C openwrt packages, or --sdk)"
		[ "${#found[@]}" = 1 ] || die "more than one ${p}_*.ipk in $ipk_dir: ${found[*]}"
		case "${found[0]}" in
			*_all.ipk | *_"$arch".ipk) chosen+=("${found[0]}") ;;
			*) die "$(basename "${found[0]}") is not for this ImageBuilder's architecture $arch" ;;
		esac
	done
fi

# --- 2. the fleet's files: keys and first-boot UCI settings -----------------------------------------------------
echo "== 2. overlay: $work/files"
overlay="$work/files"
run rm -rf "$overlay"
run mkdir -p "$overlay"
[ -z "$files" ] || run cp -a "$files/." "$overlay/"
run install -d -m 0755 "$overlay$KEY_DIR" "$overlay/etc/uci-defaults"
run install -m 0600 "$secret" "$overlay$KEY_DIR/ap-agent.secret"
uci_tls="set wislice-ap-agent.agent.tls='0'"
if [ "$no_tls" = 0 ]; then
	run install -m 0644 "$tls_ca" "$overlay$KEY_DIR/ca.pem"
	uci_tls="set wislice-ap-agent.agent.tls='1'
set wislice-ap-agent.agent.tls_ca_file='$KEY_DIR/ca.pem'"
	if [ -n "$tls_cert" ]; then
		run install -m 0644 "$tls_cert" "$overlay$KEY_DIR/ap.pem"
		run install -m 0600 "$tls_key" "$overlay$KEY_DIR/ap.key"
		uci_tls="$uci_tls
set wislice-ap-agent.agent.tls_cert_file='$KEY_DIR/ap.pem'
set wislice-ap-agent.agent.tls_key_file='$KEY_DIR/ap.key'"
	fi
	[ -z "$tls_name" ] || uci_tls="$uci_tls
set wislice-ap-agent.agent.tls_server_name='$tls_name'"
fi
# Runs once at first boot (OpenWrt's /etc/uci-defaults): the ids follow the AP's MAC address, so one image serves
# the whole fleet; the switch's datapath id is 2^24 + the MAC's low 24 bits, clear of small hand-given ids.
defaults="$overlay/etc/uci-defaults/90-wislice"
if [ "$dry_run" = 1 ]; then
	echo "+ (first-boot UCI settings) > $defaults"
else
	cat >"$defaults" <<EOF
#!/bin/sh
# WiSlice fleet settings, written by build-image.sh: controller, keys, and this AP's ids from its MAC address.
mac=""
for dev in eth0 br-lan \$(ls /sys/class/net); do
	[ "\$dev" = lo ] && continue
	mac="\$(cat "/sys/class/net/\$dev/address" 2>/dev/null)" || continue
	[ -n "\$mac" ] && [ "\$mac" != 00:00:00:00:00:00 ] && break
done
hex="\$(echo "\$mac" | tr -d ':' | tr 'A-F' 'a-f')"
case "\$hex" in 000000000000) hex="" ;; esac
case "\$hex" in ????????????) ;; *) echo "wislice: no MAC address for the AP's ids" >&2; exit 1 ;; esac
uci -q batch <<UCI
set wislice-ap-agent.agent.agent_id='ap-\$hex'
set wislice-ap-agent.agent.controller_host='$controller'
set wislice-ap-agent.agent.secret_file='$KEY_DIR/ap-agent.secret'
$uci_tls
set wislice-ap-agent.agent.enabled='1'
set wislice-pofswitch.switch.controller_host='$controller'
set wislice-pofswitch.switch.dev_id='\$((0x1000000 + 0x\${hex#??????}))'
set wislice-pofswitch.switch.enabled='1'
commit wislice-ap-agent
commit wislice-pofswitch
UCI
EOF
	chmod 0755 "$defaults"
fi

# --- 3. the image ---------------------------------------------------------------------------------------------------
echo "== 3. ImageBuilder: add the packages, build the image"
run mkdir -p "$ib/packages"
if [ "$dry_run" = 1 ] && [ -n "$sdk" ]; then
	echo "+ cp $ipk_dir/{wislice-ap-agent,wislice-pofswitch}_*.ipk $ib/packages/"
else
	run cp "${chosen[@]}" "$ib/packages/"
fi
image_packages="${WISLICE_PACKAGES[*]}${extra:+ $extra}"
run make -C "$ib" image PROFILE="$profile" PACKAGES="$image_packages" FILES="$overlay" BIN_DIR="$work/images"

echo "== done: images in $work/images"
[ "$dry_run" = 1 ] || ls -l "$work/images"
