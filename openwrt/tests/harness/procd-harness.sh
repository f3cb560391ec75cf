#!/bin/sh
# A test stand-in for the parts of OpenWrt's /etc/rc.common, /lib/functions.sh and /lib/functions/procd.sh that
# WiSlice's init scripts call. It runs an init script's real shell code (UCI -> validated options -> procd
# instance) and records every procd call, so tests can read what procd would have been asked to run.
#
#   procd-harness.sh INIT_SCRIPT UCI_FILE ACTION [VAR=VALUE...]
#
# UCI_FILE is in `uci export` syntax, which is shell syntax (config/option/list commands with single-quoted values).
# ACTION: start | reload | triggers. VAR=VALUE pairs override the init script's top-level variables
# (PROG, RUN_DIR, ...) after it is sourced. Each procd call is appended to $HARNESS_LOG as one record: the
# function name and its arguments separated by \037, ended by \036. Values are checked against the option types
# the way validate_data would, but only for numbers, booleans and enumerations: string-like types (string, host,
# hostname, file, macaddr...) pass anything, so the init script's own checks are what stands between a hostile
# value and the generated files. An option type this harness does not know is an error, never a pass.

[ $# -ge 3 ] || { echo "usage: $0 INIT_SCRIPT UCI_FILE ACTION [VAR=VALUE...]" >&2; exit 64; }
harness_init="$1"
harness_uci="$2"
harness_action="$3"
shift 3
: "${HARNESS_LOG:?HARNESS_LOG must name the procd call log}"
# `.` looks a bare file name up in PATH
case "$harness_init" in /*) ;; *) harness_init="./$harness_init" ;; esac
case "$harness_uci" in /*) ;; *) harness_uci="./$harness_uci" ;; esac

harness_record() {
	local arg
	printf '%s' "$1" >>"$HARNESS_LOG"
	shift
	for arg in "$@"; do
		printf '\037%s' "$arg" >>"$HARNESS_LOG"
	done
	printf '\036' >>"$HARNESS_LOG"
}

# --- the UCI store, in the variables functions.sh uses: CONFIG_<section>_<option>, lists as _ITEMn/_LENGTH ------
HARNESS_SECTIONS=""
harness_section=""
harness_anon=0

harness_name_ok() {
	case "$1" in "" | *[!A-Za-z0-9_]*) echo "harness: bad UCI name '$1'" >&2; exit 65 ;; esac
}

config() {
	if [ $# -ge 2 ]; then
		harness_section="$2"
	else
		harness_anon=$((harness_anon + 1))
		harness_section="cfg$harness_anon"
	fi
	harness_name_ok "$1"
	harness_name_ok "$harness_section"
	HARNESS_SECTIONS="$HARNESS_SECTIONS $harness_section"
	eval "CONFIG_${harness_section}_TYPE=\$1"
}

option() {
	harness_name_ok "$1"
	eval "CONFIG_${harness_section}_$1=\$2"
}

list() {
	local n
	harness_name_ok "$1"
	eval "n=\${CONFIG_${harness_section}_$1_LENGTH:-0}"
	n=$((n + 1))
	eval "CONFIG_${harness_section}_$1_ITEM$n=\$2"
	eval "CONFIG_${harness_section}_$1_LENGTH=\$n"
	# as in functions.sh, the plain option holds the items joined by spaces
	eval "CONFIG_${harness_section}_$1=\"\${CONFIG_${harness_section}_$1:+\$CONFIG_${harness_section}_$1 }\$2\""
}

config_load() {
	harness_record config_load "$1"
	# shellcheck disable=SC1090
	. "$harness_uci"
}

config_get() {
	local harness_v
	harness_name_ok "$2"
	harness_name_ok "$3"
	eval "harness_v=\${CONFIG_$2_$3-}"
	[ -n "$harness_v" ] || harness_v="${4-}"
	eval "$1=\$harness_v"
}

config_foreach() {
	local fn="$1" type="$2" s t
	shift 2
	for s in $HARNESS_SECTIONS; do
		eval "t=\$CONFIG_${s}_TYPE"
		[ "$t" = "$type" ] && "$fn" "$s" "$@"
	done
	return 0
}

config_list_foreach() {
	local section="$1" opt="$2" fn="$3" n i item
	shift 3
	harness_name_ok "$section"
	harness_name_ok "$opt"
	eval "n=\${CONFIG_${section}_${opt}_LENGTH:-0}"
	i=1
	while [ "$i" -le "$n" ]; do
		eval "item=\$CONFIG_${section}_${opt}_ITEM$i"
		"$fn" "$item" "$@"
		i=$((i + 1))
	done
}

# --- validate_data stand-in ------------------------------------------------------------------------------------
harness_uint() {
	case "$1" in "" | *[!0-9]*) return 1 ;; esac
}

# harness_check TYPE VALUE [normalised value in harness_out]
harness_check() {
	local type="$1" v="$2" lo hi choices c
	harness_out="$v"
	case "$type" in
		string | host | hostname | file | directory | macaddr | "list(string)")
			return 0 ;;
		bool)
			case "$v" in
				1 | on | true | yes | enabled) harness_out=1 ;;
				0 | off | false | no | disabled) harness_out=0 ;;
				*) return 1 ;;
			esac ;;
		uinteger)
			harness_uint "$v" ;;
		port)
			harness_uint "$v" && [ "${#v}" -le 5 ] && [ "$v" -le 65535 ] ;;
		range\(*,*\))
			lo="${type#range(}"
			lo="${lo%%,*}"
			hi="${type#*,}"
			hi="${hi%)}"
			harness_uint "$v" && [ "${#v}" -le 10 ] && [ "$v" -ge "$lo" ] && [ "$v" -le "$hi" ] ;;
		or\(*\))
			choices="${type#or(}"
			choices="${choices%)}"
			for c in $(echo "$choices" | tr ',' ' '); do
				[ "$c" = "\"$v\"" ] && return 0
			done
			return 1 ;;
		*)
			echo "harness: option type '$type' is not implemented" >&2
			exit 66 ;;
	esac
}

# uci_load_validate PACKAGE TYPE SECTION CALLBACK NAME:TYPE[:DEFAULT]...
uci_load_validate() {
	local harness_pkg="$1" harness_type="$2" harness_name="$3" harness_fn="$4" harness_spec harness_opt
	local harness_otype harness_default harness_val harness_rc=0 harness_out
	shift 4
	if [ -z "$harness_name" ]; then
		# procd_add_validation calls the validator without a section: it reports the option specs.
		harness_record validation_spec "$harness_pkg" "$harness_type" "$@"
		return 0
	fi
	for harness_spec in "$@"; do
		eval "local ${harness_spec%%:*}"
	done
	for harness_spec in "$@"; do
		harness_opt="${harness_spec%%:*}"
		harness_otype="${harness_spec#*:}"
		harness_default=""
		case "$harness_otype" in
			*:*) harness_default="${harness_otype#*:}"; harness_otype="${harness_otype%%:*}" ;;
		esac
		config_get harness_val "$harness_name" "$harness_opt" "$harness_default"
		if [ -n "$harness_val" ] && ! harness_check "$harness_otype" "$harness_val"; then
			echo "validation: $harness_pkg.$harness_name.$harness_opt is not $harness_otype" >&2
			harness_rc=1
			harness_out="$harness_default"
		fi
		# shellcheck disable=SC2034  # read through eval below
		[ -n "$harness_val" ] || harness_out=""
		eval "$harness_opt=\$harness_out"
	done
	[ -n "$harness_fn" ] || return "$harness_rc"
	"$harness_fn" "$harness_name" "$harness_rc"
}

# --- procd.sh stand-ins: record, do nothing ------------------------------------------------------------------
procd_open_instance() { harness_record procd_open_instance "$@"; }
procd_set_param() { harness_record procd_set_param "$@"; }
procd_append_param() { harness_record procd_append_param "$@"; }
procd_close_instance() { harness_record procd_close_instance "$@"; }
procd_add_reload_trigger() { harness_record procd_add_reload_trigger "$@"; }
procd_add_validation() {
	harness_record procd_add_validation "$@"
	"$@"
}
logger() { harness_record logger "$@"; }

# rc.common: `start` (used by reload_service) re-runs start_service inside procd's service transaction.
start() { start_service "$@"; }

# --- run ---------------------------------------------------------------------------------------------------------
# shellcheck disable=SC1090
. "$harness_init"
for harness_kv in "$@"; do
	harness_name_ok "${harness_kv%%=*}"
	eval "${harness_kv%%=*}=\${harness_kv#*=}"
done

case "$harness_action" in
	start) start_service ;;
	reload) reload_service ;;
	triggers) service_triggers ;;
	*) echo "harness: unknown action $harness_action" >&2; exit 64 ;;
esac
