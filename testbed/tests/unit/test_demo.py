from pathlib import Path

from wislice_testbed.demo import components_with_demo


def test_components_with_demo_reads_makefiles(tmp_path: Path) -> None:
    (tmp_path / "ap-agent").mkdir()
    (tmp_path / "ap-agent" / "Makefile").write_text("build:\n\ttrue\ndemo: build\n\techo hi\n")
    (tmp_path / "mec-agent").mkdir()
    (tmp_path / "mec-agent" / "Makefile").write_text("build:\n\t@echo no demo: here\n")
    assert components_with_demo(tmp_path) == ["ap-agent"]
