# sdk stand-in (see ../rules.mk): meson.mk. OpenWrt's meson steps for a native build: the same `meson setup`
# arguments (build type plain, default_library both, then the package's MESON_ARGS, build directory
# PKG_BUILD_DIR/openwrt-build, sources PKG_BUILD_DIR) without the cross and native files of a real SDK.

MESON_BUILD_DIR := $(PKG_BUILD_DIR)/openwrt-build
MESON_VARS :=
MESON_ARGS :=

define Build/Configure/Meson
	$(MESON_VARS) $(MESON) setup --buildtype plain -Ddefault_library=both $(MESON_ARGS) \
		$(MESON_BUILD_DIR) $(MESON_BUILD_DIR)/..
endef

define Build/Compile/Meson
	+$(MESON_VARS) $(NINJA) -C $(MESON_BUILD_DIR) $(1)
endef

define Build/Install/Meson
	+DESTDIR="$(PKG_INSTALL_DIR)" $(NINJA) -C $(MESON_BUILD_DIR) install
endef

Build/Configure = $(call Build/Configure/Meson)
Build/Compile = $(call Build/Compile/Meson)
Build/Install = $(call Build/Install/Meson)
