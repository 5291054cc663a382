//! Every accepted form of the device specs and every error (the window spec's are in
//! `window.rs`), and the same bad input giving the same message whichever front end's path
//! built the spec (the CLI's flags, the JSON the JavaScript API sends, the page's boxes).

use super::*;
use crate::preview::Geometry;
use crate::summary::fit::{default_devices, Devices, FitOptions, Gpu, SizeError};
use crate::summary::memory::KvType;
use crate::view::fit::{inputs, Settings};

const GIB: u64 = 1 << 30;

pub(super) fn geometry(rows: u64, row_values: u64) -> Geometry {
    Geometry {
        row_values,
        rows,
        row_bytes: row_values * 4,
        unit_values: 1,
        unit_bytes: 4,
        big_endian: false,
    }
}

pub(super) fn json<T: serde::de::DeserializeOwned>(text: &str) -> T {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn devices(d: &DeviceSpec) -> Result<Devices, DeviceError> {
    d.to_devices()
}

fn gpu(name: &str, bytes: u64) -> Gpu {
    Gpu {
        name: name.into(),
        bytes,
    }
}

#[test]
fn devices_in_every_form() {
    // The one set of defaults, from every front end.
    let d = default_devices();
    assert_eq!(d.gpus, [gpu("GPU 0", 8 * GIB)]);
    assert_eq!(d.ram, 16 * GIB);
    assert_eq!(devices(&DeviceSpec::default()), Ok(d.clone()));
    assert_eq!(devices(&DeviceSpec::from_text(&[], None)), Ok(d.clone()));
    assert_eq!(devices(&json("{}")), Ok(d.clone()));
    assert_eq!(
        devices(&json(r#"{"gpus": null, "ram": null}"#)),
        Ok(d.clone())
    );
    assert_eq!(inputs(&Settings::default()).map(|i| i.devices), Ok(d));
    let o = FitOptions::default();
    assert_eq!((o.context, o.kv, o.margin), (None, KvType::F16, GIB));
    assert_eq!(OptionsSpec::default().to_options(), Ok(o.clone()));
    assert_eq!(
        OptionsSpec::from_text(None, None, None).to_options(),
        Ok(o.clone())
    );
    assert_eq!(json::<OptionsSpec>("{}").to_options(), Ok(o.clone()));
    assert_eq!(inputs(&Settings::default()).map(|i| i.options), Ok(o));

    // Every GPU form: a size, a card (naming it), bytes, an entry with bytes (a number or
    // text) or size, a name; 0-byte GPUs left out, but counted in the names.
    let d: DeviceSpec = json(
        r#"{"gpus": ["24GiB", "rtx3060", 1073741824, 0, "0",
            {"bytes": 2147483648}, {"bytes": "3GiB"}, {"size": "rtx4090"},
            {"name": " my card ", "size": "4GiB"}, {"name": "", "bytes": 5368709120}],
            "ram": "64GiB"}"#,
    );
    assert_eq!(
        devices(&d),
        Ok(Devices {
            gpus: vec![
                gpu("GPU 0", 24 * GIB),
                gpu("GPU 1: RTX 3060 (12 GiB)", 12 * GIB),
                gpu("GPU 2", GIB),
                gpu("GPU 5", 2 * GIB),
                gpu("GPU 6", 3 * GIB),
                gpu("GPU 7: RTX 4090 (24 GiB)", 24 * GIB),
                gpu("my card", 4 * GIB),
                gpu("GPU 9", 5 * GIB),
            ],
            ram: 64 * GIB,
        })
    );
    assert_eq!(devices(&json(r#"{"ram": 1024}"#)).map(|d| d.ram), Ok(1024));
    // No GPU: an empty list, or only 0-byte GPUs (`--gpu 0`).
    assert_eq!(
        devices(&json(r#"{"gpus": []}"#)).map(|d| d.gpus),
        Ok(vec![])
    );
    let cli = DeviceSpec::from_text(&["0".into()], Some("16GiB"));
    assert_eq!(devices(&cli).map(|d| d.gpus), Ok(vec![]));
    let page = Settings {
        gpus: vec![],
        ..Settings::default()
    };
    assert_eq!(inputs(&page).map(|i| i.devices.gpus), Ok(vec![]));
    // The CLI's flags and the page's boxes read alike.
    let cli = DeviceSpec::from_text(&["rtx4090".into(), "12 GB".into()], Some("64GiB"));
    let page = Settings {
        gpus: vec!["rtx4090".into(), "12 GB".into()],
        ram: "64GiB".into(),
        ..Settings::default()
    };
    assert_eq!(
        devices(&cli),
        inputs(&page)
            .map(|i| i.devices)
            .map_err(|_| DeviceError::Context)
    );

    // Options: tokens (the CLI's u64, a JSON number), a box's text (clamped, or the model's
    // own with a note), any case of a KV type, a margin as text or bytes.
    let o = OptionsSpec::from_text(Some(4096), Some("q8_0"), Some("512MiB"));
    assert_eq!(
        o.to_options(),
        Ok(FitOptions {
            context: Some(4096),
            kv: KvType::Q8_0,
            margin: 512 << 20,
        })
    );
    let o: OptionsSpec = json(r#"{"context": 4096, "kv": " Q8_0 ", "margin": 536870912}"#);
    assert_eq!(
        o.to_options().map(|o| (o.context, o.kv, o.margin)),
        Ok((Some(4096), KvType::Q8_0, 512 << 20))
    );
    assert_eq!(
        json::<OptionsSpec>(r#"{"margin": "0"}"#)
            .to_options()
            .map(|o| o.margin),
        Ok(0)
    );
    let typed = |t: &str| OptionsSpec {
        context: Some(ContextSpec::Typed(t.into())),
        ..OptionsSpec::default()
    };
    assert_eq!(typed("8k").to_options().map(|o| o.context), Ok(Some(8192)));
    assert_eq!(typed("8k").context_note(), None);
    assert_eq!(typed("").to_options().map(|o| o.context), Ok(None));
    assert_eq!(typed("lots").to_options().map(|o| o.context), Ok(None));
    assert!(typed("lots")
        .context_note()
        .is_some_and(|n| n.contains("model's own")));
    assert_eq!(typed("0").to_options().map(|o| o.context), Ok(Some(1)));
    assert!(typed("0")
        .context_note()
        .is_some_and(|n| n.starts_with("clamped")));
}

#[test]
fn every_device_error() {
    let d = |text: &str| devices(&json(text)).unwrap_err();
    let o = |text: &str| json::<OptionsSpec>(text).to_options().unwrap_err();
    let cases: [(DeviceError, &str, &str, &str, &str); 13] = [
        (
            d(r#"{"gpus": "24GiB"}"#),
            "gpus: must be an array",
            "devices.gpus: must be an array",
            "--gpu: must be an array",
            "GPUs: must be an array",
        ),
        (
            d(&format!(r#"{{"gpus": [{}]}}"#, vec!["1"; 17].join(","))),
            "gpus: at most 16 GPUs",
            "devices.gpus: at most 16 GPUs",
            "--gpu: at most 16 GPUs",
            "GPUs: at most 16 GPUs",
        ),
        (
            d(r#"{"gpus": ["8GiB", "x"]}"#),
            "gpus[1]: \"x\" is not a memory size (e.g. 24GiB, 12 GB, 8192MiB, or a card such as rtx4090)",
            "devices.gpus[1]: \"x\" is not a memory size (e.g. 24GiB, 12 GB, 8192MiB, or a card such as rtx4090)",
            "--gpu: \"x\" is not a memory size (e.g. 24GiB, 12 GB, 8192MiB, or a card such as rtx4090)",
            "GPU 1: \"x\" is not a memory size (e.g. 24GiB, 12 GB, 8192MiB, or a card such as rtx4090)",
        ),
        (
            d(r#"{"gpus": [0.5]}"#),
            "gpus[0]: 0.5 is not a whole number of bytes (0 to 2^53)",
            "devices.gpus[0]: 0.5 is not a whole number of bytes (0 to 2^53)",
            "--gpu: 0.5 is not a whole number of bytes (0 to 2^53)",
            "GPU 0: 0.5 is not a whole number of bytes (0 to 2^53)",
        ),
        (
            d(r#"{"gpus": [{"bytes": -1}]}"#),
            "gpus[0].bytes: -1 is not a whole number of bytes (0 to 2^53)",
            "devices.gpus[0].bytes: -1 is not a whole number of bytes (0 to 2^53)",
            "--gpu: -1 is not a whole number of bytes (0 to 2^53)",
            "GPU 0: -1 is not a whole number of bytes (0 to 2^53)",
        ),
        (
            d(r#"{"gpus": [{"bytes": [1]}]}"#),
            "gpus[0].bytes: must be a number of bytes or a size such as \"24GiB\"",
            "devices.gpus[0].bytes: must be a number of bytes or a size such as \"24GiB\"",
            "--gpu: must be a number of bytes or a size such as \"24GiB\"",
            "GPU 0: must be a number of bytes or a size such as \"24GiB\"",
        ),
        (
            d(r#"{"gpus": [{"size": 1024}]}"#),
            "gpus[0].size: must be a string such as \"24GiB\"",
            "devices.gpus[0].size: must be a string such as \"24GiB\"",
            "--gpu: must be a string such as \"24GiB\"",
            "GPU 0: must be a string such as \"24GiB\"",
        ),
        (
            d(r#"{"gpus": [{}]}"#),
            "gpus[0]: needs one of bytes or size",
            "devices.gpus[0]: needs one of bytes or size",
            "--gpu: needs one of bytes or size",
            "GPU 0: needs one of bytes or size",
        ),
        (
            d(r#"{"gpus": [true]}"#),
            "gpus[0]: must be a size, a number of bytes or {name?, bytes | size}",
            "devices.gpus[0]: must be a size, a number of bytes or {name?, bytes | size}",
            "--gpu: must be a size, a number of bytes or {name?, bytes | size}",
            "GPU 0: must be a size, a number of bytes or {name?, bytes | size}",
        ),
        (
            d(r#"{"ram": "99999999999T"}"#),
            "ram: \"99999999999T\" is more than 2^64 bytes",
            "devices.ram: \"99999999999T\" is more than 2^64 bytes",
            "--ram: \"99999999999T\" is more than 2^64 bytes",
            "RAM: \"99999999999T\" is more than 2^64 bytes",
        ),
        (
            o(r#"{"context": 0}"#),
            "context: must be a whole number of tokens (at least 1)",
            "options.context: must be a whole number of tokens (at least 1)",
            "--ctx: must be a whole number of tokens (at least 1)",
            "context: must be a whole number of tokens (at least 1)",
        ),
        (
            o(r#"{"kv": 8}"#),
            "kv: must be f16, q8_0 or q4_0 (a string)",
            "options.kv: must be f16, q8_0 or q4_0 (a string)",
            "--kv: must be f16, q8_0 or q4_0 (a string)",
            "KV type: must be f16, q8_0 or q4_0 (a string)",
        ),
        (
            o(r#"{"margin": false}"#),
            "margin: must be a number of bytes or a size such as \"24GiB\"",
            "options.margin: must be a number of bytes or a size such as \"24GiB\"",
            "--margin: must be a number of bytes or a size such as \"24GiB\"",
            "margin: must be a number of bytes or a size such as \"24GiB\"",
        ),
    ];
    for (e, display, api, cli, page) in cases {
        assert_eq!(e.to_string(), display);
        assert_eq!(e.text_for(Front::Api), api);
        assert_eq!(e.text_for(Front::Cli), cli);
        assert_eq!(e.text_for(Front::Page), page);
    }
    // Other shapes that are not whole tokens; a string context is not read by the API.
    for bad in [
        r#"{"context": 1.5}"#,
        r#"{"context": -4}"#,
        r#"{"context": "8k"}"#,
        r#"{"context": 1e300}"#,
    ] {
        assert_eq!(o(bad), DeviceError::Context, "{bad}");
    }
    assert_eq!(
        OptionsSpec::from_text(Some(0), None, None).to_options(),
        Err(DeviceError::Context)
    );
    assert_eq!(
        DeviceError::NotAnObject.text_for(Front::Api),
        "devices: must be an object {gpus, ram}"
    );
    assert_eq!(o(r#"{"kv": "q5"}"#), DeviceError::Kv(Some("q5".into())));
    assert!(matches!(
        d(r#"{"ram": "lots"}"#),
        DeviceError::Size {
            input: DeviceInput::Ram,
            error: SizeError::NotASize(_)
        }
    ));
}

/// The same bad text gives the same message from the spec, whichever front end built it: the
/// CLI's flags, the API's JSON, the page's boxes.
#[test]
fn the_same_bad_text_reads_the_same_everywhere() {
    let page_error = |s: Settings| -> DeviceError {
        let (d, o) = s.specs();
        d.to_devices()
            .and_then(|_| o.to_options().map(|_| ()))
            .unwrap_err()
    };
    let ok_gpus = vec!["8GiB".to_string()];
    let table: [(&str, DeviceError, DeviceError, DeviceError); 4] = [
        (
            "gpus[0]: \"lots\" is not a memory size (e.g. 24GiB, 12 GB, 8192MiB, or a card such as rtx4090)",
            DeviceSpec::from_text(&["lots".into()], None).to_devices().unwrap_err(),
            devices(&json(r#"{"gpus": ["lots"]}"#)).unwrap_err(),
            page_error(Settings { gpus: vec!["lots".into()], ..Settings::default() }),
        ),
        (
            "ram: \"lots\" is not a memory size (e.g. 24GiB, 12 GB, 8192MiB, or a card such as rtx4090)",
            DeviceSpec::from_text(&ok_gpus, Some("lots")).to_devices().unwrap_err(),
            devices(&json(r#"{"ram": "lots"}"#)).unwrap_err(),
            page_error(Settings { ram: "lots".into(), ..Settings::default() }),
        ),
        (
            "kv: \"q5\" is not f16, q8_0 or q4_0",
            OptionsSpec::from_text(None, Some("q5"), None).to_options().unwrap_err(),
            json::<OptionsSpec>(r#"{"kv": "q5"}"#).to_options().unwrap_err(),
            page_error(Settings { kv: "q5".into(), ..Settings::default() }),
        ),
        (
            "margin: \"1.2.3G\" is not a memory size (e.g. 24GiB, 12 GB, 8192MiB, or a card such as rtx4090)",
            OptionsSpec::from_text(None, None, Some("1.2.3G")).to_options().unwrap_err(),
            json::<OptionsSpec>(r#"{"margin": "1.2.3G"}"#).to_options().unwrap_err(),
            page_error(Settings { margin: "1.2.3G".into(), ..Settings::default() }),
        ),
    ];
    for (display, cli, api, page) in table {
        assert_eq!(cli.to_string(), display);
        assert_eq!(api, cli, "{display}");
        assert_eq!(page, cli, "{display}");
    }
    // The page shows its own names through the same errors.
    let e = inputs(&Settings {
        ram: "lots".into(),
        ..Settings::default()
    })
    .unwrap_err();
    assert_eq!((e.field, e.index), ("ram", None));
    assert!(
        e.message.starts_with("RAM: \"lots\" is not a memory size"),
        "{}",
        e.message
    );
    let e = inputs(&Settings {
        kv: "q5".into(),
        ..Settings::default()
    })
    .unwrap_err();
    assert_eq!(
        (e.field, e.message.as_str()),
        ("kv", "KV type: \"q5\" is not f16, q8_0 or q4_0")
    );

    // Windows: the CLI's flags, the API's text and pair, the page's boxes.
    let g = geometry(100, 50);
    for (display, specs) in [
        (
            "rows: 9..5 is empty",
            [
                WindowSpec::from_text(Some("9..5"), None, None),
                json(r#"{"rows": "9..5"}"#),
                json(r#"{"rows": [9, 5]}"#),
            ],
        ),
        (
            "cols: \"a\" is not a whole number",
            [
                WindowSpec::from_text(None, Some("a..b"), None),
                json(r#"{"cols": "a..b"}"#),
                WindowSpec {
                    cols: Some(RangeSpec::Text("a..b".into())),
                    ..WindowSpec::default()
                },
            ],
        ),
    ] {
        for s in specs {
            assert_eq!(s.request(&g).unwrap_err().to_string(), display);
        }
    }
}
