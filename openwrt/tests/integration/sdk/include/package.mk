# sdk stand-in (see ../rules.mk): package.mk. The build steps in OpenWrt's order, for one package Makefile:
# prepare (a fresh PKG_BUILD_DIR, then Build/Prepare), configure, compile, install (Build/Install, only with
# PKG_INSTALL=1), then Package/<name>/install for every BuildPackage into STAGE_DIR/<name>.

PKG_BUILD_DIR ?= $(BUILD_DIR)/$(PKG_NAME)$(if $(PKG_VERSION),-$(PKG_VERSION))
PKG_INSTALL_DIR ?= $(PKG_BUILD_DIR)/ipkg-install

define Build/Prepare/Default
	@echo "sdk stand-in: no PKG_SOURCE unpacking: the package must define Build/Prepare" >&2; false
endef

define Build/Compile/Default
	@echo "sdk stand-in: no default Build/Compile: the package must define one" >&2; false
endef

Build/Prepare = $(call Build/Prepare/Default)
Build/Configure =
Build/Compile = $(call Build/Compile/Default)
Build/Install =

.DEFAULT_GOAL := stage
.PHONY: prepare configure compile install stage

prepare:
	rm -rf $(PKG_BUILD_DIR)
	mkdir -p $(PKG_BUILD_DIR)
	$(Build/Prepare)

configure: prepare
	$(Build/Configure)

compile: configure
	$(Build/Compile)

install: compile
ifeq ($(strip $(PKG_INSTALL)),1)
	mkdir -p $(PKG_INSTALL_DIR)
	$(Build/Install)
endif

stage: install

print-%:
	@$(info $($*)):

# $(1): package name. Stages Package/$(1)/install into STAGE_DIR/$(1), and its conffiles list next to it.
define BuildPackage
$(if $(value Package/$(1)/install),,$(error sdk stand-in: package $(1) has no Package/$(1)/install))
.PHONY: stage-$(1)
stage: stage-$(1)
stage-$(1): install
	rm -rf $(STAGE_DIR)/$(1)
	mkdir -p $(STAGE_DIR)/$(1)
	$$(call Package/$(1)/install,$(STAGE_DIR)/$(1))
	printf '%s\n' $$(strip $$(Package/$(1)/conffiles)) >$(STAGE_DIR)/$(1).conffiles
endef
