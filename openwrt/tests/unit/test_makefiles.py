"""Static checks of the feed's package Makefiles: the fields OpenWrt needs, in the order its packages use them,
and consistency with the sources they package."""

from __future__ import annotations

import re
import tomllib

import pytest
from owrt import FEED, PACKAGES, ROOT, makefile_assignments, makefile_define

# The order of the packages feed (net/htpdate, net/vnstat2): rules.mk, PKG_*, package.mk, Package/x, description,
# conffiles, install, BuildPackage.
ORDER = [
    r"^include \$\(TOPDIR\)/rules\.mk$",
    r"^PKG_NAME:=",
    r"^PKG_VERSION:=",
    r"^PKG_RELEASE:=",
    r"^PKG_LICENSE:=",
    r"^PKG_MAINTAINER:=",
    r"^include \$\(INCLUDE_DIR\)/package\.mk$",
    r"^define Package/{name}$",
    r"^define Package/{name}/description$",
    r"^define Package/{name}/conffiles$",
    r"^define (Py3)?Package/{name}/install$",
    r"^\$\(eval \$\(call BuildPackage,{name}\)\)$",
]
SPDX = re.compile(r"^(BSD-3-Clause|BSD-2-Clause|MIT|Apache-2\.0|GPL-2\.0-only|GPL-2\.0-or-later|ISC)$")


def source(name: str) -> str:
    return (PACKAGES[name] / "Makefile").read_text()


def line_of(text: str, pattern: str) -> int:
    lines = text.splitlines()
    hits = [i for i, line in enumerate(lines) if re.search(pattern, line)]
    assert hits, f"missing: {pattern}"
    return hits[0]


def test_feed_layout_is_what_scripts_feeds_expects():
    # scripts/feeds indexes <feed>/<category>/<package>/Makefile
    found = sorted(p.parent.name for p in FEED.glob("*/*/Makefile"))
    assert found == sorted(PACKAGES)


@pytest.mark.parametrize("name", sorted(PACKAGES))
def test_fields_in_order(name):
    text = source(name)
    positions = [line_of(text, p.format(name=re.escape(name))) for p in ORDER]
    assert positions == sorted(positions), f"{name}: fields out of order: {list(zip(ORDER, positions, strict=True))}"
    first = next(line for line in text.splitlines() if line.strip() and not line.startswith("#"))
    assert first == "include $(TOPDIR)/rules.mk"
    last = [line for line in text.splitlines() if line.strip()][-1]
    assert re.match(r"^\$\(eval \$\(call BuildPackage,", last)


@pytest.mark.parametrize("name", sorted(PACKAGES))
def test_field_values(name):
    v = makefile_assignments(source(name))
    assert v["PKG_NAME"] == name == PACKAGES[name].name
    assert re.fullmatch(r"\d+\.\d+\.\d+", v["PKG_VERSION"])
    assert re.fullmatch(r"[1-9]\d*", v["PKG_RELEASE"])
    assert SPDX.match(v["PKG_LICENSE"]), v["PKG_LICENSE"]
    assert re.fullmatch(r"[^<>]+ <[^@<>\s]+@[^@<>\s]+>", v["PKG_MAINTAINER"])


@pytest.mark.parametrize("name", sorted(PACKAGES))
def test_package_definition(name):
    text = source(name)
    body = makefile_define(text, f"Package/{name}")
    for key in ("SECTION", "CATEGORY", "TITLE"):
        assert re.search(rf"^\s+{key}:=\S", body, re.M), f"{name}: Package/{name} lacks {key}"
    conffiles = makefile_define(text, f"Package/{name}/conffiles")
    assert conffiles.split() == [f"/etc/config/{name}"]
    install = makefile_define(text, f"Package/{name}/install") or makefile_define(text, f"Py3Package/{name}/install")
    assert f"$(INSTALL_CONF) ./files/{name}.config $(1)/etc/config/{name}" in install
    assert f"$(INSTALL_BIN) ./files/{name}.init $(1)/etc/init.d/{name}" in install
    for ref in re.findall(r"\./files/(\S+)", install):
        assert (PACKAGES[name] / "files" / ref).is_file(), ref
    # make recipes: every line inside a define that runs a command starts with a tab
    for define in re.findall(r"^define (?:Build|Py3Package|Package)/[^\n]*\n(.*?)^endef", text, re.M | re.S):
        for line in define.splitlines():
            if re.match(r"\s*\$\((INSTALL_|CP|call Build)", line):
                assert line.startswith("\t"), f"{name}: recipe line without a tab: {line!r}"


def test_versions_follow_the_sources():
    meson = (ROOT / "pof-switch" / "meson.build").read_text()
    meson_version = re.search(r"version\s*:\s*'([^']+)'", meson).group(1)
    assert makefile_assignments(source("wislice-pofswitch"))["PKG_VERSION"] == meson_version
    pyproject = tomllib.loads((ROOT / "ap-agent" / "pyproject.toml").read_text())
    assert makefile_assignments(source("wislice-ap-agent"))["PKG_VERSION"] == pyproject["project"]["version"]
    license_ = re.search(r"license\s*:\s*'([^']+)'", meson).group(1)
    assert makefile_assignments(source("wislice-pofswitch"))["PKG_LICENSE"] == license_


def test_pofswitch_builds_the_afpacket_variant_with_existing_options():
    text = source("wislice-pofswitch")
    assert "include $(INCLUDE_DIR)/meson.mk" in text
    args = re.findall(r"-D([a-z_]+)=(\S+)", makefile_assignments(text)["MESON_ARGS"])
    opts = dict(args)
    assert opts["dpdk"] == "disabled"
    project_opts = set(re.findall(r"option\('([a-z_]+)'", (ROOT / "pof-switch" / "meson_options.txt").read_text()))
    builtin = {"werror", "b_lto", "b_ndebug", "buildtype", "default_library"}
    assert set(opts) <= project_opts | builtin, set(opts) - project_opts - builtin
    install = makefile_define(text, "Package/wislice-pofswitch/install")
    assert "$(MESON_BUILD_DIR)/pofswitch-afp $(1)/usr/sbin/pofswitch-afp" in install
    assert re.search(r"executable\('pofswitch-afp'", (ROOT / "pof-switch" / "meson.build").read_text())
    # everything Build/Prepare copies exists in the tree it copies from
    prepare = makefile_define(text, "Build/Prepare")
    for rel in re.findall(r"\$\(POFSWITCH_SRC\)/([\w./-]+)", prepare):
        assert (ROOT / "pof-switch" / rel).exists(), rel


def test_ap_agent_is_a_python_package_of_the_agent_sources():
    text = source("wislice-ap-agent")
    v = makefile_assignments(text)
    assert "include $(TOPDIR)/feeds/packages/lang/python/python3-package.mk" in text
    assert v["PYTHON3_PKG_BUILD"] == "0"
    assert "$(eval $(call Py3Package,wislice-ap-agent))" in text
    assert "$(eval $(call BuildPackage,wislice-ap-agent-src))" in text
    assert "PKGARCH:=all" in makefile_define(text, "Package/wislice-ap-agent")
    assert (ROOT / "ap-agent" / "src" / "wislice_ap_agent" / "__main__.py").is_file()
    # the protocol package and its schema ship inside it: what Build/Prepare copies exists in the tree
    for var in ("AP_AGENT_SRC", "AGENT_PROTO_SRC", "AGENT_SCHEMA"):
        rel = v[var].removeprefix("$(WISLICE_SRC_DIR)/")
        assert (ROOT / rel).exists(), f"{var}: {rel}"
        assert f"$({var})" in makefile_define(text, "Build/Prepare")
