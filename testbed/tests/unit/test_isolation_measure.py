"""The Fig. 11 arithmetic on recorded series: which intervals count, worst client, bounds of the demo's checks."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from wislice_testbed.scenarios import fig11, isolation, video
from wislice_testbed.scenarios.traffic import Flow, Series

SCALE = isolation.Scale(capacity_kbps=10_000, video_kbps=2_000, video_up_kbps=1_000, neighbour_start_s=6.0,
                        video_s=16, tail_s=6)


def series(name: str, rate_at: dict[int, float], offset: float = 0.3) -> Series:
    return Series(name, [(offset + t, rate_at.get(t, 0.0)) for t in range(1, 23)])


def test_mean_counts_only_whole_intervals_inside_the_window() -> None:
    s = Series("x", [(1.0, 1.0), (2.0, 2.0), (3.0, 3.0), (4.0, 10.0)])
    assert s.mean(1.0, 3.0) == 2.5  # the intervals ending at 2 and 3
    assert s.mean(10.0, 12.0) == 0.0  # a flow that reported nothing there counts as silent


def test_measure_takes_the_worst_video_client_and_the_neighbour_alone() -> None:
    exp = isolation.Experiment("sliced_down")
    exp.series = {"video1": series("video1", {t: 2.0 for t in range(17)}),
                  "video2": series("video2", {**{t: 2.0 for t in range(17)}, **{t: 1.0 for t in range(10, 17)}}),
                  "neighbour": series("neighbour", {t: (5.0 if t < 17 else 9.8) for t in range(7, 23)})}
    isolation.measure(exp, SCALE, uplink=False)
    # Contention window [9, 15.5]: video2 at 1.0 from t=10 drags the worst client down.
    assert exp.metrics["video_worst_mbps"] < 2.0
    assert exp.metrics["video_share_pct"] == round(100 * exp.metrics["video_worst_mbps"] / 2.0, 1)
    assert exp.metrics["neighbour_contended_mbps"] == 5.0
    assert exp.metrics["neighbour_alone_mbps"] == 9.8
    # Under contention the two videos and the neighbour filled the 10 Mbit/s radio to (2 + worst + 5) / 10.
    used = 100 * (2.0 + exp.metrics["video_worst_mbps"] + 5.0) / 10.0
    assert abs(exp.metrics["radio_used_pct"] - used) < 0.2


def test_flows_follow_the_direction_of_the_run() -> None:
    stations = [(object(), "sta1"), (object(), "sta2")]
    for uplink in (False, True):
        flows = isolation.flows_for(SCALE, [(type("S", (), {"server_addr": "10.61.2.10"})(), s, "10.61.1.10")
                                            for _, s in stations],
                                    (type("S", (), {"server_addr": "10.62.2.10"})(), "sta3"), uplink)
        assert [f.name for f in flows] == ["video1", "video2", "neighbour"]
        assert all(f.down is not uplink for f in flows)
        assert flows[0].udp_kbps == (1_000 if uplink else 2_000)
        assert flows[-1].parallel == 10 and flows[-1].start_s == 6.0 and flows[-1].seconds == 16
    clip = video.Clip(Path("/nonexistent.ts"), 2000, 16)
    real = isolation.flows_for(SCALE, [(None, "sta1", "10.61.1.10")], (type("S", (), {"server_addr": "x"})(), "sta3"),
                               False, clip)
    assert isinstance(real[0], video.VideoFlow) and real[0].station_addr == "10.61.1.10"
    down = Flow("v", None, "10.61.2.10", down=True, seconds=5, udp_kbps=2000).argv(5301)
    up = Flow("v", None, "10.61.2.10", down=False, seconds=5, udp_kbps=2000).argv(5301)
    assert "-R" in down and "--get-server-output" not in down and "-b 2000k" in down
    assert "--get-server-output" in up and "-R" not in up


def test_demo_checks_have_both_bounds() -> None:
    good = {"guaranteed_share_pct": 99.0, "guaranteed_share_up_pct": 98.0, "capped_peak_pct": 101.0,
            "unsliced_video_pct": 40.0, "neighbour_contended_mbps": 5.0, "psnr_sliced_db": 55.0,
            "psnr_unsliced_db": 15.0, "radio_capacity_mbps": 10.0}
    assert all(fig11.checks(good).values())
    for key, bad in (("guaranteed_share_pct", 80.0), ("guaranteed_share_pct", 150.0), ("capped_peak_pct", 120.0),
                     ("capped_peak_pct", 10.0), ("unsliced_video_pct", 60.0), ("unsliced_video_pct", 0.0),
                     ("neighbour_contended_mbps", 1.9), ("psnr_sliced_db", 20.0), ("psnr_unsliced_db", 0.0),
                     ("psnr_unsliced_db", 60.0)):
        assert not all(fig11.checks({**good, key: bad}).values()), (key, bad)


def test_capped_peak_is_the_neighbours_highest_second_alone() -> None:
    exp = isolation.Experiment("sliced_down")
    # Alone window [17.5, 22]: the intervals ending at 19..22; 9.0 ends at 17.3, before the window.
    exp.series = {"neighbour": Series("neighbour", [(17.3, 9.0), (19.3, 6.9), (20.3, 7.2), (21.3, 6.8)])}
    assert fig11.capped_peak_mbps(exp, SCALE) == 7.2
    assert fig11.capped_peak_mbps(isolation.Experiment("x", {"neighbour": Series("neighbour")}), SCALE) == 0.0


def test_scaled_keeps_every_rate_in_proportion_to_the_capacity() -> None:
    demo_scale = fig11.DEMO_SCALE.scaled(3_500)
    assert (demo_scale.capacity_kbps, demo_scale.video_kbps, demo_scale.video_up_kbps) == (3_500, 1_050, 350)
    assert (demo_scale.neighbour_guaranteed_kbps, demo_scale.neighbour_cap_kbps) == (100, 2_450)
    assert all(isinstance(v, int) for k, v in demo_scale.__dict__.items() if k.endswith("_kbps"))
    assert demo_scale.flows == fig11.DEMO_SCALE.flows and demo_scale.video_s == fig11.DEMO_SCALE.video_s
    assert SCALE.scaled(10_000) == SCALE


def fig13_after(dips: dict[int, float]) -> dict[str, float]:
    """Fig. 13's measure on three clients steady at the transcoded rate after the transcoder runs (t = 30 s), with
    the given seconds at another share of it."""
    from wislice_testbed.scenarios import fig13

    scale = fig11.DEMO_SCALE
    own = fig13.transcode_kbps(scale) * 1.1 / 1000
    exp = isolation.Experiment("transcoder")
    for i in (1, 2, 3):
        exp.series[f"video{i}"] = Series(f"video{i}", [(t + 0.2, own * dips.get(t, 1.0)) for t in range(1, 90)])
    watch = fig13.PolicyWatch("watch", None, 0, changes=[(20.0, {"state": "deploying"}),
                                                          (30.0, {"state": "active", "reaction_s": 9.0})])
    fig13.measure(exp, scale, fig13.Join("join", None, None, None, "", 12.0), watch)
    return exp.metrics


def test_fig13_stable_tolerates_a_one_second_dip_not_a_stall() -> None:
    assert fig13_after({})["stable_after_transcoder"] == 1
    one_dip = fig13_after({50: 0.5})
    assert one_dip["stable_after_transcoder"] == 1 and one_dip["video_after_worst_second_pct"] == 50.0
    assert fig13_after({50: 0.0, 51: 0.0, 52: 3.0})["stable_after_transcoder"] == 0  # a stall, then its burst
    assert fig13_after({t: 0.7 for t in range(30, 90)})["stable_after_transcoder"] == 0  # the mean short


def test_unsliced_run_has_two_video_clients_and_the_neighbour_on_a_four_station_testbed() -> None:
    stations = [SimpleNamespace(name=f"sta{i}") for i in range(1, 5)]
    tb = SimpleNamespace(ap=SimpleNamespace(stations=stations, agent_id="ap1"))
    shared, layout = isolation.unsliced_layout(tb, isolation.Scale(), {1: "token"})
    [(run, body, members)] = layout
    assert run is shared and members == stations[:3]
    assert body["bandwidth"]["down_guaranteed_kbps"] == 0


def test_a_neighbour_that_started_late_moves_the_contention_window_with_it() -> None:
    # Asked to start at 6 s, the busy guest starts the neighbour at 10.3 s: the videos keep 2.0 until then, 1.0
    # after. The planned window [9, 15.5] would count 1-2 uncontended seconds; the run's window starts 3 s after
    # the neighbour really did.
    exp = isolation.Experiment("unsliced_down")
    video = {t: (2.0 if t <= 10 else 1.0) for t in range(1, 17)}
    exp.series = {"video1": series("video1", video), "video2": series("video2", video),
                  "neighbour": series("neighbour", {t: 8.0 for t in range(11, 23)})}
    isolation.measure(exp, SCALE, uplink=False)
    assert exp.metrics["video_share_pct"] == 50.0
    assert exp.metrics["late_start_s"] == 4.3
    # The videos' first interval ends at 1.3 s, so they count as started 0.3 s late: [13.3, 15.8].
    assert exp.metrics["contention_s"] == 2.5
    (c0, c1), (a0, a1), _ = isolation.as_run(exp, SCALE)
    assert [round(x, 1) for x in (c0, c1, a0, a1)] == [13.3, 15.8, 17.8, 26.3]
