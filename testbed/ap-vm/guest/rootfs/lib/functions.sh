#!/bin/sh
# The AP VM's stand-in for OpenWrt's /lib/functions.sh: what the feed's init scripts and maintainer scripts call.
# UCI files (/etc/config/<package>) are read as OpenWrt's config_load reads `uci export`: config/option/list lines
# are shell commands that fill CONFIG_<section>_<option> variables (lists also _ITEMn and _LENGTH).
# shellcheck shell=dash

CONFIG_SECTIONS=""
CONFIG_SECTION=""
CONFIG_NUM_SECTIONS=0

_uci_name_ok() {
	case "$1" in "" | *[!A-Za-z0-9_]*) echo "functions.sh: bad UCI name '$1'" >&2; return 1 ;; esac
}

config() {
	if [ -n "$2" ]; then
		CONFIG_SECTION="$2"
	else
		CONFIG_NUM_SECTIONS=$((CONFIG_NUM_SECTIONS + 1))
		CONFIG_SECTION="cfg$CONFIG_NUM_SECTIONS"
	fi
	_uci_name_ok "$1" && _uci_name_ok "$CONFIG_SECTION" || return 1
	CONFIG_SECTIONS="$CONFIG_SECTIONS $CONFIG_SECTION"
	eval "CONFIG_${CONFIG_SECTION}_TYPE=\$1"
}

option() {
	_uci_name_ok "$1" || return 1
	eval "CONFIG_${CONFIG_SECTION}_$1=\$2"
}

list() {
	local n
	_uci_name_ok "$1" || return 1
	eval "n=\${CONFIG_${CONFIG_SECTION}_$1_LENGTH:-0}"
	n=$((n + 1))
	eval "CONFIG_${CONFIG_SECTION}_$1_ITEM$n=\$2"
	eval "CONFIG_${CONFIG_SECTION}_$1_LENGTH=\$n"
	eval "CONFIG_${CONFIG_SECTION}_$1=\"\${CONFIG_${CONFIG_SECTION}_$1:+\$CONFIG_${CONFIG_SECTION}_$1 }\$2\""
}

config_load() {
	local file="${UCI_CONFIG_DIR:-$IPKG_INSTROOT/etc/config}/$1"
	CONFIG_SECTIONS=""
	CONFIG_NUM_SECTIONS=0
	[ -f "$file" ] || { echo "config_load: no $file" >&2; return 1; }
	# shellcheck disable=SC1090
	. "$file"
}

# config_get VAR SECTION OPTION [DEFAULT], or config_get SECTION OPTION (prints the value)
config_get() {
	local _v
	case "$3" in
		"") eval "echo \"\${CONFIG_$1_$2:-\$4}\"" ;;
		*)
			_uci_name_ok "$2" && _uci_name_ok "$3" || return 1
			eval "_v=\${CONFIG_$2_$3:-\$4}"
			eval "$1=\$_v" ;;
	esac
}

config_get_bool() {
	local _b
	config_get _b "$2" "$3" "$4"
	case "$_b" in
		1 | on | true | yes | enabled) _b=1 ;;
		0 | off | false | no | disabled) _b=0 ;;
		*) _b="$4" ;;
	esac
	eval "$1=\$_b"
}

config_set() {
	_uci_name_ok "$1" && _uci_name_ok "$2" || return 1
	eval "CONFIG_$1_$2=\$3"
}

config_foreach() {
	local fn="$1" type="$2" s t
	shift 2
	for s in $CONFIG_SECTIONS; do
		eval "t=\$CONFIG_${s}_TYPE"
		[ -z "$type" ] || [ "$t" = "$type" ] && "$fn" "$s" "$@"
	done
	return 0
}

config_list_foreach() {
	local section="$1" opt="$2" fn="$3" n i item
	shift 3
	_uci_name_ok "$section" && _uci_name_ok "$opt" || return 1
	eval "n=\${CONFIG_${section}_${opt}_LENGTH:-0}"
	i=1
	while [ "$i" -le "$n" ]; do
		eval "item=\$CONFIG_${section}_${opt}_ITEM$i"
		"$fn" "$item" "$@"
		i=$((i + 1))
	done
}

# --- validate_data: the option types the feed's init scripts declare ----------------------------------------------
_uci_uint() {
	case "$1" in "" | *[!0-9]*) return 1 ;; esac
	[ "${#1}" -le 9 ]
}

# _uci_check TYPE VALUE: 0 when VALUE is a TYPE; the normalised value in _uci_out. An unknown type fails.
_uci_check() {
	local type="$1" v="$2" lo hi c
	_uci_out="$v"
	case "$type" in
		string | host | hostname | file | directory | macaddr | "list(string)")
			return 0 ;;
		bool)
			case "$v" in
				1 | on | true | yes | enabled) _uci_out=1 ;;
				0 | off | false | no | disabled) _uci_out=0 ;;
				*) return 1 ;;
			esac ;;
		uinteger)
			_uci_uint "$v" ;;
		port)
			_uci_uint "$v" && [ "$v" -le 65535 ] ;;
		range\(*,*\))
			lo="${type#range(}"
			lo="${lo%%,*}"
			hi="${type#*,}"
			hi="${hi%)}"
			_uci_uint "$v" && [ "$v" -ge "$lo" ] && [ "$v" -le "$hi" ] ;;
		or\(*\))
			for c in $(echo "${type#or(}" | tr -d ')' | tr ',' ' '); do
				[ "$c" = "\"$v\"" ] && return 0
			done
			return 1 ;;
		*)
			echo "validate_data: option type '$type' is not supported in the AP VM" >&2
			return 1 ;;
	esac
}

# uci_load_validate PACKAGE TYPE SECTION CALLBACK NAME:TYPE[:DEFAULT]...: each option checked and set as a
# variable (an invalid value: the default, and the callback's second argument 1), then CALLBACK SECTION RESULT.
uci_load_validate() {
	local _pkg="$1" _name="$3" _fn="$4" _spec _opt _otype _default _val _rc=0 _uci_out
	shift 4
	[ -n "$_name" ] || return 0
	for _spec in "$@"; do
		eval "local ${_spec%%:*}"
	done
	for _spec in "$@"; do
		_opt="${_spec%%:*}"
		_otype="${_spec#*:}"
		_default=""
		case "$_otype" in
			*:*) _default="${_otype#*:}"; _otype="${_otype%%:*}" ;;
		esac
		config_get _val "$_name" "$_opt" "$_default"
		_uci_out=""
		if [ -n "$_val" ] && ! _uci_check "$_otype" "$_val"; then
			echo "validation: $_pkg.$_name.$_opt is not $_otype" >&2
			_rc=1
			_uci_out="$_default"
		fi
		eval "$_opt=\$_uci_out"
	done
	[ -n "$_fn" ] || return "$_rc"
	"$_fn" "$_name" "$_rc"
}

# --- maintainer scripts (OpenWrt's generated postinst/prerm call these) ---------------------------------------------
# On the device: enable (not on an upgrade) and start the package's services; in an image root (IPKG_INSTROOT set):
# only enable them. default_prerm: stop and disable (not on an upgrade).
default_postinst() {
	local root="$IPKG_INSTROOT" pkgname i
	pkgname="$(basename "${1%.*}")"
	# shellcheck disable=SC2013  # one path a line, no blanks in them
	for i in $(grep -s "^/etc/init.d/" "$root/usr/lib/opkg/info/$pkgname.list"); do
		if [ -n "$root" ]; then
			/bin/sh "$root/etc/rc.common" "$root$i" enable
		else
			[ "$PKG_UPGRADE" = 1 ] || "$i" enable
			"$i" start
		fi
	done
	return 0
}

default_prerm() {
	local root="$IPKG_INSTROOT" pkgname i
	pkgname="$(basename "${1%.*}")"
	# shellcheck disable=SC2013  # one path a line, no blanks in them
	for i in $(grep -s "^/etc/init.d/" "$root/usr/lib/opkg/info/$pkgname.list"); do
		if [ -n "$root" ]; then
			/bin/sh "$root/etc/rc.common" "$root$i" disable
		else
			[ "$PKG_UPGRADE" = 1 ] || "$i" disable
			"$i" stop
		fi
	done
	return 0
}
