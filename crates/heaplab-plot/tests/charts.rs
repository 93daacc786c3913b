//! Each chart drawn on fixed input, compared with its SVG snapshot so that any change to
//! the drawing shows up as a diff (`UPDATE_EXPECT=1 cargo test -p heaplab-plot` rewrites
//! the snapshots when a change is meant), plus the file writers and bad input.

#[path = "support/svg.rs"]
mod svg_check;

use expect_test::expect_file;
use heaplab_core::simulate::PhaseMark;
use heaplab_plot::{
    draw_track, render_png, render_svg, write, Chart, PlotError, SummaryChart, SummaryRow,
    SweepChart, SweepLine, SweepScale, SweepValue, Track, TrackChart, XAxis,
};

const SIZE: (u32, u32) = (800, 400);

fn phase(label: &str, end_event: u64) -> PhaseMark {
    PhaseMark {
        label: label.into(),
        end_event,
        live_bytes: 0,
        committed_bytes: 0,
        resident_bytes: 0,
    }
}

/// Two runs of twelve points over 1.2 million events: one keeps what it freed, one gives
/// it back after the load phase.
struct Fixture {
    t: Vec<u64>,
    live: Vec<u64>,
    kept: Vec<u64>,
    returned: Vec<u64>,
    commits: [Vec<u64>; 2],
    decommits: [Vec<u64>; 2],
    phases: Vec<PhaseMark>,
}

fn fixture() -> Fixture {
    let t: Vec<u64> = (1..=12).map(|i| i * 100_000).collect();
    let mib = 1u64 << 20;
    let live: Vec<u64> = [1, 3, 6, 9, 12, 4, 2, 2, 5, 8, 3, 1]
        .iter()
        .map(|&m| m * mib)
        .collect();
    let kept: Vec<u64> = [2, 4, 7, 10, 13, 13, 13, 13, 13, 13, 13, 13]
        .iter()
        .map(|&m| m * mib)
        .collect();
    let returned: Vec<u64> = [2, 4, 7, 10, 13, 5, 3, 3, 6, 9, 4, 2]
        .iter()
        .map(|&m| m * mib)
        .collect();
    Fixture {
        commits: [
            (1..=12).map(|i| 40 + i * 3).collect(),
            (1..=12).map(|i| 40 + i * 350).collect(),
        ],
        decommits: [vec![0; 12], (0..12).map(|i| i * 300).collect()],
        t,
        live,
        kept,
        returned,
        phases: vec![
            phase("load", 500_000),
            phase("serve", 800_000),
            phase("x", 810_000),
            phase("reload", 1_200_000),
        ],
    }
}

/// The fixture's memory: each run's resident bytes (solid) against the live bytes
/// (dashed) they share.
fn memory_runs(f: &Fixture) -> [Track<'_>; 2] {
    [
        Track {
            label: "keeps freed pages",
            t: &f.t,
            solid: &f.kept,
            dashed: &f.live,
            ns: &[],
        },
        Track {
            label: "returns freed pages",
            t: &f.t,
            solid: &f.returned,
            dashed: &f.live,
            ns: &[],
        },
    ]
}

/// The chart as SVG, which must parse as one XML document.
fn svg(chart: &impl Chart) -> String {
    let out = render_svg(chart, SIZE).expect("the chart draws");
    svg_check::parse("the chart", &out);
    out
}

/// Every text element of an SVG, in order.
fn texts(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .filter_map(|s| {
            let body = &s[s.find('>')? + 1..];
            Some(body[..body.find("</text>")?].trim().to_string())
        })
        .collect()
}

#[test]
fn memory_chart_snapshot() {
    let f = fixture();
    let runs = memory_runs(&f);
    let out = svg(&TrackChart {
        title: "Memory over time",
        phases: &f.phases,
        zoom: None,
        ..TrackChart::memory(&runs)
    });
    let t = texts(&out);
    for want in [
        "Memory over time",
        "keeps freed pages",
        "returns freed pages",
        "resident",
        "live",
        "memory (MiB)",
        "events",
        "1.2M",
        "400k",
        "load",
        "serve",
        "reload",
    ] {
        assert!(t.iter().any(|s| s == want), "{want:?} missing from {t:?}");
    }
    // Ten events are too few to hold a name: the phase keeps its boundary only.
    assert!(!t.iter().any(|s| s == "x"), "{t:?}");
    assert!(out.contains(r#"font-family="sans-serif""#));
    expect_file!["snapshots/memory.svg"].assert_eq(&out);
}

#[test]
fn zoomed_memory_chart_snapshot() {
    let f = fixture();
    let runs = memory_runs(&f);
    let out = svg(&TrackChart {
        title: "",
        phases: &f.phases,
        zoom: Some((450_000, 850_000)),
        ..TrackChart::memory(&runs)
    });
    let t = texts(&out);
    assert!(t.iter().any(|s| s == "events (450k to 850k)"), "{t:?}");
    // No title row when there is no title.
    assert!(!t.iter().any(|s| s == "Memory over time"));
    expect_file!["snapshots/memory-zoom.svg"].assert_eq(&out);
}

#[test]
fn page_ops_chart_snapshot() {
    let f = fixture();
    let runs = [
        Track {
            label: "keeps freed pages",
            t: &f.t,
            solid: &f.commits[0],
            dashed: &f.decommits[0],
            ns: &[],
        },
        Track {
            label: "returns freed pages",
            t: &f.t,
            solid: &f.commits[1],
            dashed: &f.decommits[1],
            ns: &[],
        },
    ];
    let out = svg(&TrackChart {
        title: "Commit and decommit calls",
        phases: &f.phases,
        zoom: None,
        ..TrackChart::page_ops(&runs)
    });
    let t = texts(&out);
    for want in [
        "commits",
        "decommits",
        "commit and decommit calls so far",
        "4k",
    ] {
        assert!(t.iter().any(|s| s == want), "{want:?} missing from {t:?}");
    }
    expect_file!["snapshots/page-ops.svg"].assert_eq(&out);
}

fn rows() -> [SummaryRow<'static>; 3] {
    [
        SummaryRow {
            label: "glibc-like",
            peak_resident_bytes: 13 << 20,
            end_resident_bytes: 13 << 20,
            page_ops: Some(52),
            touched_bytes: Some(14 << 20),
            utilization: 0.923,
        },
        SummaryRow {
            label: "mimalloc-like with a name too long for its column",
            peak_resident_bytes: 14 << 20,
            end_resident_bytes: 2 << 20,
            page_ops: Some(4_210),
            touched_bytes: Some(15 << 20),
            utilization: 0.857,
        },
        SummaryRow {
            label: "buddy",
            peak_resident_bytes: 16 << 20,
            end_resident_bytes: 6 << 20,
            page_ops: Some(1_200_000),
            touched_bytes: Some(16 << 20),
            utilization: f64::NAN,
        },
    ]
}

#[test]
fn summary_bars_snapshot() {
    let rows = rows();
    let out = svg(&SummaryChart {
        title: "Summary",
        rows: &rows,
    });
    let t = texts(&out);
    for want in [
        "peak resident",
        "end resident",
        "all page calls",
        "touched",
        "utilization",
        "glibc-like",
        "13 MiB",
        "1.2M",
        "4.2k",
        "92.3%",
        "n/a",
    ] {
        assert!(t.iter().any(|s| s == want), "{want:?} missing from {t:?}");
    }
    // The long name is cut to its column, with an ellipsis.
    assert!(
        t.iter()
            .any(|s| s.starts_with("mimalloc-like") && s.ends_with('…')),
        "{t:?}"
    );
    expect_file!["snapshots/summary.svg"].assert_eq(&out);
}

#[test]
fn summary_bars_fit_a_wide_short_chart() {
    let rows = rows();
    let out = render_svg(
        &SummaryChart {
            title: "Summary",
            rows: &rows,
        },
        (1280, 400),
    )
    .unwrap();
    // Wide enough for the whole name.
    let t = texts(&out);
    assert!(t
        .iter()
        .any(|s| s == "mimalloc-like with a name too long for its column"));
}

#[test]
fn sweep_snapshot() {
    let sizes = [4096.0, 16384.0, 65536.0, 262144.0, 1048576.0];
    let heap: Vec<(f64, f64)> = sizes.iter().map(|&s| (s, 90.0)).collect();
    let pages: Vec<(f64, f64)> = sizes
        .iter()
        .zip([17_600.0, 7_800.0, f64::NAN, 560.0, 190.0])
        .map(|(&s, v)| (s, v))
        .collect();
    let lines = [
        SweepLine {
            label: "slabs from malloc",
            points: &heap,
        },
        SweepLine {
            label: "slabs from mmap",
            points: &pages,
        },
    ];
    let out = svg(&SweepChart {
        title: "Page operations against slab size",
        parameter: "slab_size",
        scale: SweepScale::Log2Bytes,
        metric: "page operations",
        value: SweepValue::Count,
        lines: &lines,
    });
    let t = texts(&out);
    for want in [
        "4 KiB",
        "64 KiB",
        "1 MiB",
        "slab_size",
        "page operations",
        "15k",
    ] {
        assert!(t.iter().any(|s| s == want), "{want:?} missing from {t:?}");
    }
    // Nine points are marked: the NaN is left out.
    assert_eq!(
        out.matches("<circle").count(),
        9 + 2,
        "points and legend markers"
    );
    expect_file!["snapshots/sweep.svg"].assert_eq(&out);
}

#[test]
fn a_sweep_in_bytes_labels_its_unit() {
    let points = [(1.0, 3.0 * 1048576.0), (2.0, 5.0 * 1048576.0)];
    let lines = [SweepLine {
        label: "peak resident",
        points: &points,
    }];
    let out = svg(&SweepChart {
        title: "",
        parameter: "threads",
        scale: SweepScale::Linear,
        metric: "peak resident",
        value: SweepValue::Bytes,
        lines: &lines,
    });
    let t = texts(&out);
    assert!(t.iter().any(|s| s == "peak resident (MiB)"), "{t:?}");
}

/// Bad input draws something sensible: a message, an axis around the one value, never a
/// panic or an error.
#[test]
fn bad_input_still_draws() {
    let empty = svg(&TrackChart::memory(&[]));
    assert!(texts(&empty)
        .iter()
        .any(|s| s == "no samples in this range"));

    let none: [u64; 0] = [];
    let hollow = [Track {
        label: "empty",
        t: &none,
        solid: &none,
        dashed: &none,
        ns: &[],
    }];
    let phases = [phase("late", 50), phase("early", 10)];
    let out = svg(&TrackChart {
        phases: &phases,
        ..TrackChart::memory(&hollow)
    });
    assert!(texts(&out).iter().any(|s| s == "no samples in this range"));

    let one = [Track {
        label: "one point",
        t: &[7],
        solid: &[4096],
        dashed: &[100],
        ns: &[],
    }];
    let out = svg(&TrackChart::memory(&one));
    assert!(out.contains("<circle"), "a lone sample is marked");

    let f = fixture();
    let runs = memory_runs(&f);
    // Zooms that are empty, backwards or past the end: an axis and a word, never a curve
    // drawn outside its range.
    for zoom in [
        (300_000, 300_000),
        (900_000, 100_000),
        (5_000_000, 6_000_000),
    ] {
        let out = svg(&TrackChart {
            phases: &f.phases,
            zoom: Some(zoom),
            ..TrackChart::memory(&runs)
        });
        let t = texts(&out);
        assert!(t.iter().any(|s| s.starts_with("events")), "{zoom:?}: {t:?}");
    }
    let mismatched = [Track {
        label: "short",
        t: &f.t,
        solid: &f.commits[0][..3],
        dashed: &[],
        ns: &[],
    }];
    let out = svg(&TrackChart::page_ops(&mismatched));
    assert!(
        texts(&out).iter().any(|s| s == "short"),
        "the run keeps its legend"
    );

    let summary = svg(&SummaryChart::default());
    assert!(texts(&summary).iter().any(|s| s == "no runs to compare"));
    let zeros = [SummaryRow {
        label: "idle",
        peak_resident_bytes: 0,
        end_resident_bytes: 0,
        page_ops: Some(0),
        touched_bytes: Some(0),
        utilization: f64::INFINITY,
    }];
    let out = svg(&SummaryChart {
        title: "",
        rows: &zeros,
    });
    assert!(texts(&out).iter().any(|s| s == "idle"), "{:?}", texts(&out));

    for points in [
        vec![],
        vec![(f64::NAN, 1.0), (4096.0, f64::NAN)],
        vec![(0.0, 5.0), (-1.0, 2.0)],
        vec![(4096.0, 12.0)],
        vec![(4096.0, 12.0), (4096.0, 12.0)],
    ] {
        for scale in [SweepScale::Log2Bytes, SweepScale::Linear] {
            let lines = [SweepLine {
                label: "odd",
                points: &points,
            }];
            let out = svg(&SweepChart {
                title: "odd sweep",
                parameter: "x",
                scale,
                metric: "y",
                value: SweepValue::Ratio,
                lines: &lines,
            });
            let t = texts(&out);
            assert!(t.iter().any(|s| s == "odd sweep"), "{points:?}: {t:?}");
        }
    }
    let out = svg(&SweepChart::default());
    assert!(texts(&out).iter().any(|s| s == "no values to draw"));
}

#[test]
fn sizes_out_of_range_are_errors() {
    let chart = TrackChart::memory(&[]);
    for size in [(0, 400), (800, 0), (100_000, 400)] {
        let e = render_svg(&chart, size).unwrap_err();
        assert!(matches!(e, PlotError::Size { .. }), "{e}");
        assert!(e.to_string().contains("pixels"), "{e}");
        assert!(render_png(&chart, size).is_err());
    }
}

/// The width, height and pixels of a PNG, read back with the decoder.
fn decode(bytes: &[u8]) -> (u32, u32, Vec<u8>) {
    let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    let mut reader = decoder.read_info().expect("a PNG header");
    let mut buf = vec![0; reader.output_buffer_size().expect("a sane size")];
    let info = reader.next_frame(&mut buf).expect("a PNG frame");
    assert_eq!(info.color_type, png::ColorType::Rgb);
    buf.truncate(info.buffer_size());
    (info.width, info.height, buf)
}

#[test]
fn png_has_the_size_asked_for_and_draws_text() {
    let f = fixture();
    let runs = memory_runs(&f);
    let bytes = render_png(
        &TrackChart {
            title: "Memory over time",
            phases: &f.phases,
            zoom: None,
            ..TrackChart::memory(&runs)
        },
        (640, 320),
    )
    .unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    let (w, h, pixels) = decode(&bytes);
    assert_eq!((w, h), (640, 320));
    // The title row holds nothing but the title: dark pixels there are its glyphs, drawn
    // with the embedded font.
    let dark_in_title = pixels[..(w * 28 * 3) as usize]
        .chunks(3)
        .filter(|p| p.iter().all(|&c| c < 120))
        .count();
    assert!(
        dark_in_title > 50,
        "{dark_in_title} dark pixels in the title row"
    );
    // The first run's colour is somewhere in the plot.
    assert!(pixels.chunks(3).any(|p| p == [0, 114, 178]));
}

#[test]
fn write_chooses_the_format_by_extension() {
    let dir = std::env::temp_dir().join(format!("heaplab-plot-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let rows = rows();
    let chart = SummaryChart {
        title: "Summary",
        rows: &rows,
    };

    let svg_path = dir.join("summary.SVG");
    write(&svg_path, (600, 300), &chart).unwrap();
    let text = std::fs::read_to_string(&svg_path).unwrap();
    assert!(text.starts_with("<svg"), "{}", &text[..40]);

    let png_path = dir.join("summary.png");
    write(&png_path, (600, 300), &chart).unwrap();
    let (w, h, _) = decode(&std::fs::read(&png_path).unwrap());
    assert_eq!((w, h), (600, 300));

    let jpg = dir.join("summary.jpg");
    let e = write(&jpg, (600, 300), &chart).unwrap_err();
    let msg = e.to_string();
    assert!(msg.contains("summary.jpg") && msg.contains(".jpg"), "{msg}");
    assert!(!jpg.exists(), "nothing is written for an unknown extension");

    let bare = dir.join("summary");
    let msg = write(&bare, (600, 300), &chart).unwrap_err().to_string();
    assert!(msg.contains("no extension"), "{msg}");

    let missing = dir.join("no-such-dir").join("summary.svg");
    let e = write(&missing, (600, 300), &chart).unwrap_err();
    assert!(matches!(e, PlotError::Io { .. }));
    assert!(e.to_string().contains("no-such-dir"), "{e}");

    std::fs::remove_dir_all(&dir).unwrap();
}

/// A chart far too small for its axes and labels still draws (or fails with an error),
/// never panics: sizes come from the command line and from the page's canvas.
#[test]
fn tiny_charts_do_not_panic() {
    let f = fixture();
    let runs = memory_runs(&f);
    let memory = TrackChart {
        title: "Memory over time",
        phases: &f.phases,
        zoom: None,
        ..TrackChart::memory(&runs)
    };
    let rows = rows();
    let summary = SummaryChart {
        title: "Summary",
        rows: &rows,
    };
    let points = [(4096.0, 1.0), (8192.0, 2.0)];
    let lines = [SweepLine {
        label: "line",
        points: &points,
    }];
    let sweep = SweepChart {
        title: "Sweep",
        lines: &lines,
        ..SweepChart::default()
    };
    // Each size gives a picture of that size, or an error that says it is too small:
    // never a panic, and never a picture of some other size.
    let mut drawn = 0;
    for size in [(1, 1), (2, 300), (300, 2), (30, 20), (120, 60)] {
        for (what, svg, png) in [
            (
                "memory",
                render_svg(&memory, size),
                render_png(&memory, size),
            ),
            (
                "summary",
                render_svg(&summary, size),
                render_png(&summary, size),
            ),
            ("sweep", render_svg(&sweep, size), render_png(&sweep, size)),
        ] {
            match (svg, png) {
                (Ok(svg), Ok(png)) => {
                    let doc = svg_check::parse(what, &svg);
                    let root = doc.root_element();
                    let asked = (size.0.to_string(), size.1.to_string());
                    assert_eq!(
                        (root.attribute("width"), root.attribute("height")),
                        (Some(asked.0.as_str()), Some(asked.1.as_str())),
                        "{what} at {size:?}"
                    );
                    let (w, h, _) = decode(&png);
                    assert_eq!((w, h), size, "{what} at {size:?}");
                    drawn += 1;
                }
                (Err(e), Err(_)) => assert!(e.to_string().contains("pixels"), "{what}: {e}"),
                (svg, png) => panic!(
                    "{what} at {size:?}: SVG {:?}, PNG {:?}",
                    svg.map(|_| "drawn"),
                    png.map(|_| "drawn")
                ),
            }
        }
    }
    // The larger sizes draw all three charts.
    assert!(drawn >= 6, "only {drawn} tiny charts drawn");
}

/// Three charts drawn as panels of one picture, as the CLI stacks a panel per workload.
struct Panels<'a> {
    memory: TrackChart<'a>,
    summary: SummaryChart<'a>,
    sweep: SweepChart<'a>,
}

impl Chart for Panels<'_> {
    fn draw<DB: plotters::prelude::DrawingBackend>(
        &self,
        root: &plotters::prelude::DrawingArea<DB, plotters::coord::Shift>,
    ) -> Result<(), PlotError> {
        let areas = root.split_evenly((3, 1));
        self.memory.draw(&areas[0])?;
        self.summary.draw(&areas[1])?;
        self.sweep.draw(&areas[2])
    }
}

#[test]
fn panels_make_one_document_with_every_run_drawn() {
    let f = fixture();
    let runs = memory_runs(&f);
    let rows = rows();
    let points = [
        (1.0, 3.0),
        (2.0, 5.0),
        (3.0, 4.0),
        (4.0, 6.0),
        (5.0, 2.0),
        (6.0, 3.0),
    ];
    let lines = [SweepLine {
        label: "one line",
        points: &points,
    }];
    let out = render_svg(
        &Panels {
            memory: TrackChart::memory(&runs),
            summary: SummaryChart {
                title: "Summary",
                rows: &rows,
            },
            sweep: SweepChart {
                lines: &lines,
                ..SweepChart::default()
            },
        },
        (800, 1200),
    )
    .unwrap();
    let doc = svg_check::parse("three panels", &out);
    // Each run's resident curve, a point a sample, in the first panel.
    for i in 0..2 {
        assert_eq!(svg_check::lines(&doc, i, f.t.len()), 1, "run {i}");
    }
    // Each configuration's legend box and five bars in the second (four for the third,
    // whose utilization is unknown), and the first two runs' legend boxes in the first.
    for (i, want) in [(0, 7), (1, 7), (2, 5)] {
        assert_eq!(svg_check::boxes(&doc, i), want, "configuration {i}");
    }
    // The sweep's line through its six points in the third: with the first run's curve,
    // the only lines that long in the first colour (a dash of a dashed curve has two or
    // three points).
    assert_eq!(svg_check::lines(&doc, 0, points.len()), 2);
}

#[test]
fn a_sweep_plot_of_two_metrics_is_one_document() {
    use heaplab_app::sweep::Sweep;
    use serde_json::{json, Value};
    let base = heaplab_core::config::RunConfig::new("churn", "buddy");
    let values = vec![json!(16), json!(64), json!(256)];
    let sweep = Sweep::new(
        &base,
        &[("min_block".into(), values)],
        "peak_resident_bytes",
    )
    .and_then(|s| s.plotting(&["page_ops".into()]))
    .unwrap();
    // Fixed figures for each point: every metric the report reads, rising with the value.
    let reports: Vec<Value> = (1..=3u64)
        .map(|n| {
            let figures: serde_json::Map<String, Value> = heaplab_core::metrics::keys()
                .iter()
                .map(|k| (k.to_string(), json!(n * 4096)))
                .collect();
            Value::Object(figures)
        })
        .collect();
    let report = sweep.report(&reports).unwrap();
    let metrics: Vec<_> = sweep
        .metrics()
        .iter()
        .map(|k| heaplab_core::metrics::Measure::parse(k).unwrap())
        .collect();
    assert_eq!(metrics.len(), 2);
    let plot = heaplab_plot::SweepPlot {
        report: &report,
        metrics: &metrics,
    };
    let out = render_svg(&plot, heaplab_plot::sweep_plot_size(metrics.len())).unwrap();
    let doc = svg_check::parse("a sweep of two metrics", &out);
    // A line through the three points in each metric's chart.
    assert_eq!(svg_check::lines(&doc, 0, 3), 2);
}

/// Over model time the same curves are drawn against each point's time: the axis names
/// its unit, its ticks read in it, it ends at the last point's time, and the frame says
/// which times and events its edges are; a zoom stays a window of events. Runs without
/// times are drawn over events whatever was asked.
#[test]
fn a_timed_chart_is_drawn_over_model_time() {
    let f = fixture();
    // 250 ns per event: 1.2 million events take 300 ms.
    let ns: Vec<u64> = f.t.iter().map(|&t| t * 250).collect();
    let runs = memory_runs(&f).map(|tr| tr.timed(&ns));
    let chart = TrackChart {
        phases: &f.phases,
        x: XAxis::Time,
        ..TrackChart::memory(&runs)
    };
    let out = svg(&chart);
    let t = texts(&out);
    assert!(t.iter().any(|s| s == "model time (ms)"), "{t:?}");
    for tick in ["0", "100", "200", "300"] {
        assert!(t.iter().any(|s| s == tick), "no tick {tick}: {t:?}");
    }
    assert!(!t.iter().any(|s| s == "events"), "{t:?}");
    let frame = draw_track(&svg_area(), &chart).unwrap();
    assert_eq!(frame.time, Some([0, 300_000_000]));
    assert_eq!((frame.first_event, frame.last_event), (0, 1_200_000));

    let zoomed = TrackChart {
        zoom: Some((400_000, 800_000)),
        ..chart
    };
    let frame = draw_track(&svg_area(), &zoomed).unwrap();
    assert_eq!(frame.time, Some([100_000_000, 200_000_000]));
    assert_eq!((frame.first_event, frame.last_event), (400_000, 800_000));
    let t = texts(&svg(&zoomed));
    assert!(
        t.iter()
            .any(|s| s == "model time (ms), events 400k to 800k"),
        "{t:?}"
    );

    let plain = memory_runs(&f);
    let untimed = TrackChart {
        x: XAxis::Time,
        ..TrackChart::memory(&plain)
    };
    let t = texts(&svg(&untimed));
    assert!(t.iter().any(|s| s == "events"), "{t:?}");
    assert_eq!(draw_track(&svg_area(), &untimed).unwrap().time, None);
}

/// A drawing area on an SVG backend that is thrown away, for reading a chart's frame.
fn svg_area(
) -> plotters::prelude::DrawingArea<plotters_svg::SVGBackend<'static>, plotters::coord::Shift> {
    use plotters::prelude::IntoDrawingArea;
    let out = Box::leak(Box::new(String::new()));
    plotters_svg::SVGBackend::with_string(out, SIZE).into_drawing_area()
}
