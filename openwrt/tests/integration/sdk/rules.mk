# A test stand-in for the parts of an OpenWrt SDK that the WiSlice feed's package Makefiles use: rules.mk,
# include/package.mk, include/meson.mk and the packages feed's lang/python/python3-package.mk. It runs a package
# Makefile's real recipes (Build/Prepare, Build/Configure, Build/Compile, Package/<name>/install) for the host,
# without a cross toolchain, and stages each package's files the way they would go into its .ipk:
#
#   make -C feed/net/PKG TOPDIR=<this dir> BUILD_DIR=<dir> STAGE_DIR=<dir> stage
#
# STAGE_DIR/<package>/ then holds the package's root file system and STAGE_DIR/<package>.conffiles its conffiles.
# `make ... print-VAR` prints a variable as the package Makefile leaves it (MESON_ARGS, PYTHON3_PKG_DIR, ...).
# Anything the stand-in does not implement is an error, never a silent pass.

ifeq ($(strip $(BUILD_DIR)),)
$(error sdk stand-in: set BUILD_DIR (where PKG_BUILD_DIR goes))
endif
ifeq ($(strip $(STAGE_DIR)),)
$(error sdk stand-in: set STAGE_DIR (where the packages are staged))
endif

INCLUDE_DIR := $(TOPDIR)/include
STAGING_DIR := $(BUILD_DIR)/staging_dir

# The values of OpenWrt's rules.mk.
INSTALL_DIR := install -d -m0755
INSTALL_BIN := install -m0755
INSTALL_DATA := install -m0644
INSTALL_CONF := install -m0600
CP := cp -fpR
LN := ln -sf
FIND := find
SED := sed -i -e
NINJA := ninja
MESON := meson
