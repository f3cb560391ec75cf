"""make packages (python -m ipk): the .ipk files unpack with the real tar (GNU and busybox), hold exactly what the
package Makefiles install with their modes, carry valid control data, come out the same byte for byte twice, and
bad inputs stop the build with a message that names the problem. The expectations here are read from the
Makefiles by this test's own patterns, not by the builder's reader."""

from __future__ import annotations

import gzip
import io
import os
import re
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
from owrt import AGENT_PROTO_SRC, AP_AGENT_SRC, OPENWRT, PACKAGES, ROOT, makefile_assignments, makefile_define

# The target python the AP VM runs (Debian's python3.11) when the host has it, else this one.
TARGET_PYTHON = "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else sys.executable
MTIME = 1700000000
TAR_TOOLS = [t for t in (["tar"], ["busybox", "tar"]) if shutil.which(t[0])]


def run_ipk(out: Path, meson: Path, *extra: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ipk", "--out", str(out), "--meson-build-dir", str(meson),
                           "--python", TARGET_PYTHON, "--mtime", str(MTIME), *extra],
                          cwd=OPENWRT, capture_output=True, text=True, timeout=300, env={**os.environ, **(env or {})})


def stand_in_switch(directory: Path) -> Path:
    """A real x86-64 ELF program in the place of pofswitch-afp: the package only copies it."""
    directory.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(shutil.which("true") or "/bin/true", directory / "pofswitch-afp")
    (directory / "pofswitch-afp").chmod(0o755)
    return directory


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("ipk")
    proc = run_ipk(tmp / "out", stand_in_switch(tmp / "meson"))
    assert proc.returncode == 0, proc.stderr
    paths = [Path(p) for p in proc.stdout.split()]
    assert sorted(p.name for p in paths) == sorted(p.name for p in (tmp / "out").iterdir())
    return {p.name.split("_")[0]: p for p in paths}


def unpack(tool: list[str], archive: Path, into: Path) -> list[str]:
    """Extract with a real tar, return its listing in archive order."""
    into.mkdir(parents=True, exist_ok=True)
    subprocess.run([*tool, "-xzf", str(archive), "-C", str(into)], check=True, capture_output=True, timeout=60)
    listing = subprocess.run([*tool, "-tzf", str(archive)], check=True, capture_output=True, text=True, timeout=60)
    return listing.stdout.split()


def parts(ipk: Path, tmp: Path) -> tuple[Path, Path]:
    """(data root, control dir) of an .ipk, unpacked by GNU tar."""
    unpack(["tar"], ipk, tmp / "outer")
    unpack(["tar"], tmp / "outer" / "data.tar.gz", tmp / "data")
    unpack(["tar"], tmp / "outer" / "control.tar.gz", tmp / "control")
    return tmp / "data", tmp / "control"


def files_of(root: Path) -> dict[str, int]:
    return {"/" + str(p.relative_to(root)): p.stat().st_mode & 0o7777 for p in sorted(root.rglob("*"))
            if p.is_file()}


def control_fields(control: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    key = ""
    for line in (control / "control").read_text().splitlines():
        if line.startswith(" "):
            out[key] += "\n" + line[1:]
        else:
            key, _, value = line.partition(": ")
            assert key not in out, f"field {key} twice"
            out[key] = value
    return out


def test_package_set_follows_the_makefiles(built):
    expected = set()
    for name, pkgdir in PACKAGES.items():
        text = (pkgdir / "Makefile").read_text()
        expected |= set(re.findall(r"^\$\(eval \$\(call BuildPackage,([\w-]+)\)\)$", text, re.M))
        v = makefile_assignments(text)
        assert built[name].name.startswith(f"{name}_{v['PKG_VERSION']}-r{v['PKG_RELEASE']}_")
    assert set(built) == expected
    assert built["wislice-ap-agent"].name.endswith("_all.ipk")
    assert built["wislice-pofswitch"].name.endswith("_x86_64.ipk")


@pytest.mark.parametrize("tool", TAR_TOOLS, ids=lambda t: t[0])
def test_outer_archive_is_what_opkg_reads(built, tool, tmp_path):
    for name, ipk in built.items():
        data = ipk.read_bytes()
        assert data[:2] == b"\x1f\x8b", f"{name}: not gzip (OpenWrt's opkg reads a gzip'd tar, not ar)"
        listing = unpack(tool, ipk, tmp_path / name)
        assert listing == ["./debian-binary", "./data.tar.gz", "./control.tar.gz"]
        assert (tmp_path / name / "debian-binary").read_bytes() == b"2.0\n"
        for inner in ("data.tar.gz", "control.tar.gz"):
            inner_list = unpack(tool, tmp_path / name / inner, tmp_path / name / inner.split(".")[0])
            assert inner_list[0] in ("./", "."), inner_list[:3]
            assert inner_list == sorted(inner_list) or inner == "data.tar.gz"
        with tarfile.open(ipk) as outer:
            for member in outer:
                assert (member.uid, member.gid, member.mtime) == (0, 0, MTIME)


def install_lines(define: str) -> list[tuple[int, str, str]]:
    """(mode, source, destination) of each $(INSTALL_BIN|CONF|DATA) SRC $(1)/DST line."""
    modes = {"BIN": 0o755, "CONF": 0o600, "DATA": 0o644}
    return [(modes[m.group(1)], m.group(2), m.group(3))
            for m in re.finditer(r"^\t\$\(INSTALL_(BIN|CONF|DATA)\) (\S+) \$\(1\)(/\S+)$", define, re.M)]


def test_pofswitch_holds_exactly_its_install_section(built, tmp_path):
    pkgdir = PACKAGES["wislice-pofswitch"]
    define = makefile_define((pkgdir / "Makefile").read_text(), "Package/wislice-pofswitch/install")
    lines = install_lines(define)
    assert len(lines) == len(re.findall(r"^\t\$\(INSTALL_(?:BIN|CONF|DATA)\)", define, re.M)) == 3
    data, _ = parts(built["wislice-pofswitch"], tmp_path)
    assert files_of(data) == {dst: mode for mode, _, dst in lines}
    for _, src, dst in lines:
        source = Path(shutil.which("true") or "/bin/true") if src.startswith("$(MESON_BUILD_DIR)/") else pkgdir / src
        assert (data / dst.lstrip("/")).read_bytes() == source.read_bytes(), dst


def test_ap_agent_holds_its_install_section_and_the_byte_compiled_modules(built, tmp_path):
    pkgdir = PACKAGES["wislice-ap-agent"]
    text = (pkgdir / "Makefile").read_text()
    lines = install_lines(makefile_define(text, "Py3Package/wislice-ap-agent/install"))
    version = subprocess.run([TARGET_PYTHON, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    site = f"/usr/lib/python{version}/site-packages"
    modules = {f"{site}/{d.name}/{p.name}": p for d in (AP_AGENT_SRC / "wislice_ap_agent",
                                                        AGENT_PROTO_SRC / "wislice_agent_proto")
               for p in sorted(d.glob("*.py"))}
    schema = ROOT / makefile_assignments(text)["AGENT_SCHEMA"].removeprefix("$(WISLICE_SRC_DIR)/")
    expected = {dst: mode for mode, _, dst in lines}
    expected |= {path + "c": 0o644 for path in modules}
    expected[f"{site}/wislice_agent_proto/{schema.name}"] = 0o644
    v = makefile_assignments(text)
    echoed = {dst: value.replace("$(PKG_VERSION)", v["PKG_VERSION"]).replace("$(PKG_RELEASE)", v["PKG_RELEASE"])
              for value, dst in re.findall(r'^\techo "([^"]*)" > \$\(1\)(/\S+)$', text, re.M)}
    assert set(echoed) == {"/etc/wislice/firmware_version"}
    expected |= {dst: 0o644 for dst in echoed}
    data, control = parts(built["wislice-ap-agent"], tmp_path / "main")
    assert files_of(data) == expected
    # The version file the agent reports is the package's version, and an install replaces it (no conffile).
    assert (data / "etc/wislice/firmware_version").read_text() == f"{v['PKG_VERSION']}-r{v['PKG_RELEASE']}\n"
    assert "/etc/wislice/firmware_version" not in (control / "conffiles").read_text()
    # sysupgrade keeps the agent's upgrade state directory (its default, FirmwareSettings.state_dir).
    keep = (data / "lib/upgrade/keep.d/wislice-ap-agent").read_text().split()
    assert keep == ["/etc/wislice/firmware/"]
    for _, src, dst in lines:
        assert (data / dst.lstrip("/")).read_bytes() == (pkgdir / src).read_bytes(), dst
    assert (data / site.lstrip("/") / "wislice_agent_proto" / schema.name).read_bytes() == schema.read_bytes()
    # the -src package: the sources and nothing else
    src_data, _ = parts(built["wislice-ap-agent-src"], tmp_path / "src")
    assert files_of(src_data) == {path: 0o644 for path in modules}
    for path, source in modules.items():
        assert (src_data / path.lstrip("/")).read_bytes() == source.read_bytes()


def test_byte_code_runs_on_the_target_python(built, tmp_path):
    data, _ = parts(built["wislice-ap-agent"], tmp_path)
    site = next(data.glob("usr/lib/python*/site-packages"))
    # validate loads the protocol schema from beside its modules at import
    proc = subprocess.run([TARGET_PYTHON, "-c", "import wislice_ap_agent.agent, wislice_agent_proto.validate as v; "
                           "print(wislice_ap_agent.agent.__file__); print(v.schema_path())"],
                          capture_output=True, text=True, timeout=60,
                          env={"PYTHONPATH": str(site), "PATH": os.environ["PATH"]})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == [str(site / "wislice_ap_agent" / "agent.pyc"),
                                   str(site / "wislice_agent_proto" / "message.schema.json")]


def test_control_data(built, tmp_path):
    for name, ipk in built.items():
        data, control = parts(ipk, tmp_path / name)
        main = name.removesuffix("-src")
        text = (PACKAGES[main] / "Makefile").read_text()
        v = makefile_assignments(text)
        f = control_fields(control)
        assert list(f)[:2] == ["Package", "Version"] and list(f)[-1] == "Description"
        assert f["Package"] == name and f["Version"] == f"{v['PKG_VERSION']}-r{v['PKG_RELEASE']}"
        assert f["SourceName"] == main and f["Source"] == f"feeds/wislice/net/{main}"
        assert f["License"] == v["PKG_LICENSE"] and f["Maintainer"] == v["PKG_MAINTAINER"]
        assert f["Section"] == "net"
        assert f["Architecture"] == ("x86_64" if name == "wislice-pofswitch" else "all")
        assert f["SourceDateEpoch"] == str(MTIME)
        with tarfile.open(ipk) as outer:
            data_tar = outer.extractfile("./data.tar.gz").read()
        assert f["Installed-Size"] == str(len(gzip.decompress(data_tar)))
        deps = [d.strip() for d in f["Depends"].split(",")]
        want = [] if name != main else re.findall(r"\+([\w.-]+)", makefile_define(text, f"Package/{main}") or "")
        assert deps == ["libc", *want]
        assert f["Description"].split()[:2] == makefile_define(text, f"Package/{main}/description").split()[:2]
        conffiles = (makefile_define(text, f"Package/{name}/conffiles") or "").split()
        if conffiles:
            assert (control / "conffiles").read_text().split() == conffiles
            for c in conffiles:
                assert (data / c.lstrip("/")).is_file()
        else:
            assert not (control / "conffiles").exists()
        assert sorted(p.name for p in control.iterdir()) == sorted(["control", "postinst", "prerm",
                                                                    *(["conffiles"] if conffiles else [])])
        for script in ("postinst", "prerm"):
            assert (control / script).stat().st_mode & 0o777 == 0o755


@pytest.mark.parametrize("script", ["postinst", "prerm"])
def test_maintainer_scripts_hand_over_to_openwrts_defaults(built, tmp_path, script):
    """As OpenWrt's generated scripts: source $IPKG_INSTROOT/lib/functions.sh and call default_postinst /
    default_prerm (which enable+start / stop+disable the package's /etc/init.d services); skip when the file
    is missing or IPKG_NO_SCRIPT=1. functions.sh here is a recorder."""
    _, control = parts(built["wislice-pofswitch"], tmp_path)
    root = tmp_path / "instroot"
    (root / "lib").mkdir(parents=True)
    record = tmp_path / "calls"
    (root / "lib" / "functions.sh").write_text(
        f'default_postinst() {{ echo "default_postinst $*" >>{record}; }}\n'
        f'default_prerm() {{ echo "default_prerm $*" >>{record}; }}\n')
    shells = [s for s in (["busybox", "sh"], ["dash"], ["sh"]) if shutil.which(s[0])]
    for shell in shells:
        record.unlink(missing_ok=True)
        env = {"PATH": os.environ["PATH"], "IPKG_INSTROOT": str(root)}
        proc = subprocess.run([*shell, str(control / script), "configure"], env=env, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        assert record.read_text() == f"default_{script} {control / script} configure\n"
        record.unlink()
        skip_env = {**env, "IPKG_NO_SCRIPT": "1"} if script == "postinst" else {**env, "IPKG_INSTROOT": "/nonexistent"}
        proc = subprocess.run([*shell, str(control / script)], env=skip_env, capture_output=True, text=True)
        assert proc.returncode == 0 and not record.exists()


def test_same_bytes_twice(built, tmp_path):
    # another hash seed, umask and work directory: nothing of that may show in the files
    old = os.umask(0o002)
    try:
        proc = run_ipk(tmp_path / "again", stand_in_switch(tmp_path / "m"), env={"PYTHONHASHSEED": "4242"})
    finally:
        os.umask(old)
    assert proc.returncode == 0, proc.stderr
    again = {p.name: p.read_bytes() for p in (tmp_path / "again").iterdir()}
    assert again == {p.name: p.read_bytes() for p in built.values()}
    # and the time does show: the comparison can fail
    proc = run_ipk(tmp_path / "later", tmp_path / "m", "--mtime", str(MTIME + 1))
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "later" / built["wislice-pofswitch"].name).read_bytes() != \
        built["wislice-pofswitch"].read_bytes()


def test_missing_switch_binary_is_a_clear_error(tmp_path):
    (tmp_path / "empty").mkdir()
    proc = run_ipk(tmp_path / "out", tmp_path / "empty")
    assert proc.returncode == 2
    assert f"pofswitch-afp is not built in {tmp_path / 'empty'}" in proc.stderr


def test_binary_for_another_machine_is_refused(tmp_path):
    meson = stand_in_switch(tmp_path / "meson")
    elf = bytearray((meson / "pofswitch-afp").read_bytes())
    elf[18:20] = (40).to_bytes(2, "little")  # EM_ARM
    (meson / "pofswitch-afp").write_bytes(bytes(elf))
    proc = run_ipk(tmp_path / "out", meson)
    assert proc.returncode == 2
    assert "usr/sbin/pofswitch-afp is built for ELF machine 40, not x86_64" in proc.stderr


def build_with_switch_recipe(tmp: Path, old: str, new: str) -> tuple[subprocess.CompletedProcess, Path]:
    """Builds the packages from a copy of the feed whose pof-switch Makefile has `old` replaced by `new`; returns
    the run and that Makefile."""
    feed = tmp / "feed"
    shutil.copytree(OPENWRT / "feed", feed)
    makefile = feed / "net" / "wislice-pofswitch" / "Makefile"
    text = makefile.read_text()
    assert old in text
    makefile.write_text(text.replace(old, new))
    return run_ipk(tmp / "out", stand_in_switch(tmp / "m"), "--feed", str(feed), "--src", str(ROOT)), makefile


def test_install_line_naming_a_missing_file_is_a_clear_error(tmp_path):
    anchor = "\t$(INSTALL_DIR) $(1)/etc/init.d\n"
    proc, makefile = build_with_switch_recipe(
        tmp_path, anchor, "\t$(INSTALL_DATA) ./files/missing.conf $(1)/etc/config/x\n" + anchor)
    number = makefile.read_text().splitlines().index("\t$(INSTALL_DATA) ./files/missing.conf $(1)/etc/config/x") + 1
    assert proc.returncode == 2
    assert f"{makefile}:{number}: ./files/missing.conf: no such file" in proc.stderr
    assert not list((tmp_path / "out").glob("wislice-pofswitch_*"))


def test_missing_agent_sources_stop_at_the_makefiles_own_check(tmp_path):
    proc = run_ipk(tmp_path / "out", stand_in_switch(tmp_path / "m"), "--src", str(tmp_path / "nowhere"))
    assert proc.returncode == 2
    assert "wislice-ap-agent: no ap-agent sources in" in proc.stderr and "set WISLICE_SRC_DIR" in proc.stderr


def test_a_conffile_the_package_does_not_install_is_refused(tmp_path):
    proc, _ = build_with_switch_recipe(tmp_path, "/etc/config/wislice-pofswitch\nendef",
                                       "/etc/config/wislice-pofswitch\n/etc/config/other\nendef")
    assert proc.returncode == 2
    assert "conffile /etc/config/other is not installed" in proc.stderr


def test_echo_writes_a_one_line_file_and_refuses_shell_expansion(tmp_path):
    anchor = "\t$(INSTALL_DIR) $(1)/usr/sbin\n"
    proc, _ = build_with_switch_recipe(tmp_path, anchor, anchor + '\techo "$(PKG_VERSION)" > $(1)/usr/sbin/v\n')
    assert proc.returncode == 0, proc.stderr
    data, _ = parts(next((tmp_path / "out").glob("wislice-pofswitch_*.ipk")), tmp_path / "x")
    assert (data / "usr/sbin/v").read_text() == "0.1.0\n"
    proc, _ = build_with_switch_recipe(tmp_path / "bad", anchor, anchor + '\techo "$$HOME" > $(1)/usr/sbin/v\n')
    assert proc.returncode == 2
    assert "shell expansion not implemented" in proc.stderr


def test_unknown_recipe_commands_are_refused(tmp_path):
    proc, _ = build_with_switch_recipe(tmp_path, "\t$(INSTALL_DIR) $(1)/usr/sbin\n",
                                       "\t$(INSTALL_DIR) $(1)/usr/sbin\n\t$(LN) x $(1)/usr/sbin/y\n")
    assert proc.returncode == 2
    assert "recipe command not implemented here: $(LN) x $(1)/usr/sbin/y" in proc.stderr


def test_control_tar_entries(built):
    with tarfile.open(built["wislice-ap-agent"]) as outer:
        control = outer.extractfile("./control.tar.gz").read()
    with tarfile.open(fileobj=io.BytesIO(control)) as tar:
        assert tar.getnames() == ["./", "./conffiles", "./control", "./postinst", "./prerm"] or \
            tar.getnames() == [".", "./conffiles", "./control", "./postinst", "./prerm"]
