//! The JavaScript API's calls (`inspect()`, `preview()`, `fit()` of www/weightpeek.js) without
//! the browser: the options' text fields, the files a source names, a window planned in a
//! tensor, a fit planned from its arguments, and every failure's message as JavaScript gets
//! it. `src/web/api.rs` only reads the JavaScript values, opens and decodes.

use crate::open::OpenedModel;
use crate::preview::{plan, target_geometry, Plan};
use crate::summary::fit::{plan as fit_plan, Devices, FitOptions, FitPlan};
use crate::text;
use crate::view::errors::{partial_failure, Failure, Front};
use crate::view::facts::read_in_part_note;
use crate::view::js::{is_object, JsData, JsKind};
use crate::view::opening::{url_file, url_files};
use crate::view::spec::{DeviceError, DeviceSpec, OptionsSpec, WindowSpec};

/// Longest error message passed to JavaScript (characters); the rest is summarised. Messages
/// can quote file text or list every part of a large set.
pub const MAX_MESSAGE_CHARS: usize = 2000;

/// The message of a JavaScript error for `failure`: its one line, `headline: details`
/// ([`Failure::joined`]), at most [`MAX_MESSAGE_CHARS`] characters ([`clip`]).
pub fn message(failure: &Failure) -> String {
    clip(&failure.joined(), MAX_MESSAGE_CHARS)
}

/// `text` cut to `max` characters, saying how many were left out
/// (`…… (N more characters)`); unchanged when it is not longer.
pub fn clip(text: &str, max: usize) -> String {
    let n = text.chars().count();
    if n <= max {
        return text.to_string();
    }
    let head: String = text.chars().take(max).collect();
    format!("{head}… ({} more characters)", n.saturating_sub(max))
}

/// A text option's value (`endpoint`, `token`, `name`): trimmed; `None` when absent or blank.
pub fn option_text(value: Option<String>) -> Option<String> {
    value.as_deref().and_then(text::nonblank)
}

/// The rejection of a call aborted by a signal without a reason of its own.
pub fn aborted() -> Failure {
    Failure::new("AbortError", "the call was aborted")
}

/// The failure of a source that is neither URLs nor local files.
pub fn not_a_source() -> Failure {
    Failure::new(
        "Nothing to open",
        "The source must be a URL, an array of URLs, a File or Blob, an array of them, or a FileList.",
    )
}

/// The files the source's URLs `urls` name, as (name, URL), each resolved by `resolve`
/// (against the page's base URL): one URL in any Hub form on `endpoint` (a split part or an
/// index then opens its set), or several read as one model, each named by its last segment.
/// Errors: no URL, or one that is not a file's (a repository, not a URL).
pub fn given(
    urls: &[String],
    endpoint: &str,
    resolve: impl Fn(&str) -> String,
) -> Result<Vec<(String, String)>, Failure> {
    match urls {
        [] => Err(Failure::new("Nothing to open", "No file was named.")),
        [one] => Ok(vec![url_file(&resolve(one), endpoint)?]),
        many => {
            let resolved: Vec<String> = many.iter().map(|u| resolve(u)).collect();
            Ok(url_files(&resolved))
        }
    }
}

/// A failure previewing a window (`why`: the reader's, planner's or decoder's words).
pub fn window_failure(why: impl Into<String>) -> Failure {
    Failure::new("The window cannot be previewed", why)
}

/// The read plan of the window `spec` of the tensor named `tensor` in `model` (shown as
/// `name`). Errors: no such tensor (its name escaped, cut to 200 characters; a model read in
/// part says so), a bad window or field ([`window_failure`], in the API's words).
pub fn window_plan(
    model: &OpenedModel,
    name: &str,
    tensor: &str,
    spec: &WindowSpec,
) -> Result<Plan, Failure> {
    let index = model.tensor_index(tensor).ok_or_else(|| {
        let why = read_in_part_note(model.error.as_ref());
        Failure::new(
            "No such tensor",
            format!(
                "{name} has no tensor \"{}\"{why}",
                clip(&text::escape(tensor), 200)
            ),
        )
    })?;
    let field = spec
        .field()
        .map_err(|e| window_failure(e.text_for(Front::Api)))?;
    let g = target_geometry(model, index, field).map_err(|e| window_failure(e.to_string()))?;
    let req = spec
        .request(&g)
        .map_err(|e| window_failure(e.text_for(Front::Api)))?;
    plan(model, index, &req).map_err(|e| window_failure(e.to_string()))
}

/// The failure of `fit()`'s arguments, in the API's words.
pub fn bad_fit_arguments(e: DeviceError) -> Failure {
    Failure::new("Bad fit() arguments", e.text_for(Front::Api))
}

/// `fit()`'s devices and options as read from their JavaScript values (`None`: not a plain
/// object; options that are not one are the defaults). Errors: [`bad_fit_arguments`], the
/// devices' first.
pub fn fit_arguments(
    devices: Option<DeviceSpec>,
    options: Option<OptionsSpec>,
) -> Result<(Devices, FitOptions), Failure> {
    let d = devices
        .ok_or(DeviceError::NotAnObject)
        .and_then(|d| d.to_devices())
        .map_err(bad_fit_arguments)?;
    let o = options
        .unwrap_or_default()
        .to_options()
        .map_err(bad_fit_arguments)?;
    Ok((d, o))
}

/// A failure to give a plan (`why`: the planner's or the serialiser's words).
pub fn no_plan(why: impl Into<String>) -> Failure {
    Failure::new("No plan", why)
}

/// The plan of `model` (opened as `name`) on `devices`. Errors: a model read only in part
/// ([`partial_failure`]), or none from the planner (`name: why`).
pub fn fit(
    model: &OpenedModel,
    name: &str,
    devices: &Devices,
    options: &FitOptions,
) -> Result<FitPlan, Failure> {
    if let Some(e) = &model.error {
        return Err(partial_failure(e, name, Front::Api));
    }
    let file = crate::open::recognise::file_name(name);
    fit_plan(model, file, devices, options).map_err(|e| no_plan(format!("{name}: {e}")))
}

/// The text options of a call: `endpoint` (the Hub endpoint, the default one when absent),
/// `token`, and `name` (a `Blob`'s display name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextOptions {
    /// The Hub endpoint for Hub URL forms.
    pub endpoint: String,
    /// The access token, sent only to that endpoint's origin.
    pub token: Option<String>,
    /// The display name of a `Blob`.
    pub name: Option<String>,
}

/// The text options of the options value `o` ([`option_text`] of each string property); all
/// absent when `o` is not an object.
pub fn text_options(o: &impl JsData) -> TextOptions {
    let text = |k: &str| match (is_object(o), o.get(k).kind()) {
        (true, JsKind::Text(t)) => option_text(Some(t)),
        _ => None,
    };
    TextOptions {
        endpoint: crate::remote::hub::endpoint_or_default(text("endpoint").as_deref()),
        token: text("token"),
        name: text("name"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::testutil::tiny_llama;

    use crate::view::testutil::js;

    #[test]
    fn a_calls_text_options_are_trimmed_strings_of_an_object() {
        let o = text_options(&js(
            r#"{"endpoint": " http://127.0.0.1:8000 ", "token": "  ", "name": 5}"#,
        ));
        assert_eq!(
            o,
            TextOptions {
                endpoint: "http://127.0.0.1:8000".into(),
                token: None,
                name: None
            }
        );
        let o = text_options(&js(r#"{"token": " hf_x ", "name": "m.gguf"}"#));
        assert_eq!(o.endpoint, "https://huggingface.co");
        assert_eq!(
            (o.token.as_deref(), o.name.as_deref()),
            (Some("hf_x"), Some("m.gguf"))
        );
        // Not an object: nothing read of it.
        assert_eq!(text_options(&js(r#""token""#)), text_options(&js("null")));
        assert_eq!(text_options(&js("null")).token, None);
        assert!(is_object(&js("[]")) && !is_object(&js(r#"{"fn": 1}"#)));
    }

    #[test]
    fn messages_are_clipped_by_characters() {
        assert_eq!(clip("héllo", 5), "héllo");
        assert_eq!(clip("héllo", 2), "hé… (3 more characters)");
        assert_eq!(clip("", 0), "");
        let long = Failure::new("H", "x".repeat(3000));
        let m = message(&long);
        assert!(m.starts_with("H: xxx"));
        assert!(m.ends_with("… (1003 more characters)"), "{m}");
        assert_eq!(message(&Failure::new("a", "b")), "a: b");
        assert_eq!(option_text(Some("  t ".into())), Some("t".into()));
        assert_eq!(option_text(Some(" ".into())), None);
        assert_eq!(option_text(None), None);
        assert_eq!(aborted().joined(), "AbortError: the call was aborted");
        assert_eq!(not_a_source().headline, "Nothing to open");
    }

    #[test]
    fn sources_name_their_files_resolved() {
        let hub = "https://huggingface.co";
        let resolve = |u: &str| format!("https://page.example/{}", u.trim());
        assert_eq!(
            given(&[], hub, resolve).unwrap_err().details,
            "No file was named."
        );
        assert_eq!(
            given(&[" d/m.gguf".into()], hub, resolve).unwrap(),
            [(
                "m.gguf".to_string(),
                "https://page.example/d/m.gguf".to_string()
            )]
        );
        let two = given(&["a/x.gguf".into(), "b/y.gguf".into()], hub, resolve).unwrap();
        assert_eq!(
            two[1],
            ("y.gguf".into(), "https://page.example/b/y.gguf".into())
        );
        // A repository id is not a file.
        let e = given(&["o/m".into()], hub, |u: &str| u.to_string()).unwrap_err();
        assert_eq!(e.headline, "o/m is a repository, not a file");
    }

    fn model() -> OpenedModel {
        crate::source::parse_bytes(&tiny_llama()).unwrap().into()
    }

    #[test]
    fn a_window_is_planned_in_a_named_tensor() {
        let b = crate::view::testutil::gguf(
            &[(
                "general.architecture",
                crate::view::testutil::Kv::Str("llama"),
            )],
            &[("w", 0, vec![4, 3], 48)],
        );
        let m = crate::open::OpenedModel::from(crate::source::parse_bytes(&b).unwrap());
        let t = m.tensors[0].name.clone();
        let p = window_plan(&m, "m.gguf", &t, &WindowSpec::default()).unwrap();
        let direct = plan(
            &m,
            0,
            &WindowSpec::default()
                .request(&target_geometry(&m, 0, None).unwrap())
                .unwrap(),
        )
        .unwrap();
        assert_eq!(format!("{p:?}"), format!("{direct:?}"));
        let e = window_plan(&m, "m.gguf", "no\nsuch", &WindowSpec::default()).unwrap_err();
        assert_eq!(e.headline, "No such tensor");
        assert_eq!(e.details, "m.gguf has no tensor \"no\\nsuch\"");
        let long = "x".repeat(300);
        let e = window_plan(&m, "m.gguf", &long, &WindowSpec::default()).unwrap_err();
        assert!(
            e.details.ends_with("… (100 more characters)\""),
            "{}",
            e.details
        );
        let bad: WindowSpec = serde_json::from_str(r#"{"rows": [9, 5]}"#).unwrap();
        let e = window_plan(&m, "m.gguf", &t, &bad).unwrap_err();
        assert_eq!(e.headline, "The window cannot be previewed");
        assert_eq!(
            e.details,
            bad.request(&target_geometry(&m, 0, None).unwrap())
                .unwrap_err()
                .text_for(Front::Api)
        );
        assert!(e.details.ends_with("9..5 is empty"), "{}", e.details);
    }

    #[test]
    fn fit_arguments_and_plans_say_what_is_wrong() {
        let e = fit_arguments(None, None).unwrap_err();
        assert_eq!(e.headline, "Bad fit() arguments");
        assert_eq!(e.details, DeviceError::NotAnObject.text_for(Front::Api));
        let (d, o) = fit_arguments(Some(DeviceSpec::default()), None).unwrap();
        let m = model();
        let p = fit(&m, "dir/m.gguf", &d, &o).unwrap();
        let direct = fit_plan(&m, "m.gguf", &d, &o).unwrap();
        assert_eq!(
            serde_json::to_string(&p).unwrap(),
            serde_json::to_string(&direct).unwrap()
        );
        let mut partial = m.clone();
        partial.error = Some(crate::format::Error::new(
            "tensor_count",
            8,
            crate::format::ErrorKind::Truncated {
                needed_end: 16,
                file_size: 10,
            },
        ));
        let e = fit(&partial, "m.gguf", &d, &o).unwrap_err();
        assert_eq!(
            e,
            partial_failure(partial.error.as_ref().unwrap(), "m.gguf", Front::Api)
        );
    }
}
