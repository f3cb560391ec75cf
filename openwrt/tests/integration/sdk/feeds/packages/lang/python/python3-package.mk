# sdk stand-in (see ../../../../rules.mk): the packages feed's python3-package.mk, as far as a Py3Package with
# PYTHON3_PKG_BUILD:=0 uses it. Python is the host's (HOST_PYTHON3_BIN, which also runs the staged package: its
# byte code must match), and PYTHON3_PKG_DIR follows its version. Package/<name>/install does what OpenWrt's does:
# Py3Package/<name>/install, the files of the default filespec (everything under PYTHON3_PKG_DIR), byte-compile
# everything (compileall -b: legacy .pyc next to where the source was), delete the sources, delete empty
# directories, point /usr/bin scripts at /usr/bin/python3. The -src package gets the sources and nothing else.

HOST_PYTHON3_BIN ?= python3
PYTHON3_VERSION ?= $(shell $(HOST_PYTHON3_BIN) -c 'import sys; print("%d.%d" % sys.version_info[:2])')
PYTHON3_PKG_DIR := /usr/lib/python$(PYTHON3_VERSION)/site-packages
PYTHON3_PKG_BUILD ?= 1

ifneq ($(strip $(PYTHON3_PKG_BUILD)),0)
$(error sdk stand-in: only PYTHON3_PKG_BUILD:=0 packages (no setup.py build) are implemented)
endif

define Python3/CompileAll
	$(HOST_PYTHON3_BIN) -m compileall -q -r 20 -b -d '/' $(1)
endef

define Python3/DeleteSourceFiles
	$(FIND) $(1) -type f -name '*.py' -delete
endef

define Python3/DeleteNonSourceFiles
	$(FIND) $(1) -not -type d -not -name '*.py' -delete
endef

define Python3/DeleteEmptyDirs
	$(FIND) $(1) -mindepth 1 -empty -type d -delete
endef

define Python3/FixShebang
	$(SED) "1"'!'"b;s,^#"'!'".*python.*,#"'!'"/usr/bin/python3," --follow-symlinks $(1)
endef

# $(1): destination root. The default filespec, `+|$(PYTHON3_PKG_DIR)`: all of it, when the package built any.
define Py3Package/CopyFiles
	if [ -d "$(PKG_INSTALL_DIR)$(PYTHON3_PKG_DIR)" ]; then \
		$(INSTALL_DIR) $(1)$(PYTHON3_PKG_DIR) && $(CP) $(PKG_INSTALL_DIR)$(PYTHON3_PKG_DIR)/. $(1)$(PYTHON3_PKG_DIR)/; \
	fi
endef

define Py3Package
  $(if $(value Py3Package/$(1)/filespec),$(error sdk stand-in: a custom Py3Package filespec is not implemented))

  ifndef Py3Package/$(1)/install
    define Py3Package/$(1)/install
	if [ -d $(PKG_INSTALL_DIR)/usr/bin ]; then \
		$(INSTALL_DIR) $$(1)/usr/bin && $(CP) $(PKG_INSTALL_DIR)/usr/bin/* $$(1)/usr/bin/; \
	fi
    endef
  endif

  ifndef Package/$(1)/install
    define Package/$(1)/install
	$$(call Py3Package/$(1)/install,$$(1))
	$$(call Py3Package/CopyFiles,$$(1))
	$(FIND) $$(1) -name '*.exe' -delete
	$$(call Python3/CompileAll,$$(1))
	$$(call Python3/DeleteSourceFiles,$$(1))
	$$(call Python3/DeleteEmptyDirs,$$(1))
	if [ -d "$$(1)/usr/bin" ]; then $$(call Python3/FixShebang,$$(1)/usr/bin/*); fi
    endef

    define Package/$(1)-src/install
	$$(call Py3Package/$(1)/install,$$(1))
	$$(call Py3Package/CopyFiles,$$(1))
	$$(call Python3/DeleteNonSourceFiles,$$(1))
	$$(call Python3/DeleteEmptyDirs,$$(1))
    endef
  endif
endef
