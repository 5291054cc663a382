//! The page's address as the page keeps it: `?url=<what was opened>` and, while a tensor's
//! preview is open, `&tensor=<its name>` for a remote model; the tab shown in the query for a
//! remote model (`&tab=tensors`) and in the fragment for a local file (`#tab=tensors`), which
//! no link can reopen. Summary, the default tab, is never written. Plain Rust over the address
//! (`location.href`, or its `search` and `hash`), with the browser's `URLSearchParams` rules
//! (`get` reads the first pair of a name, form-decoded; `set` keeps the first pair's place and
//! drops the others, the query is written again form-encoded, an empty one is dropped); the
//! page reads `location` ([`param`], [`asked_tab`]) and writes back what [`edited`] returns,
//! with no reload and no history entry.

use url::Url;

use super::fit::{Settings, QUERY_KEYS};
use super::tabs::Tab;

/// A change of what the page shows, which its address follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edit<'a> {
    /// A remote model was asked for as this text (trimmed): `url=` it, with no `tensor=`.
    Opened(&'a str),
    /// A local file is shown: neither `url=` nor `tensor=` (a link cannot reopen it).
    Local,
    /// A tensor's preview was opened (its name) or closed (`None`): `tensor=`, for a remote
    /// model only (without `url=`, a `tensor=` reproduces nothing).
    Tensor(Option<&'a str>),
    /// This tab is shown.
    Tab(Tab),
    /// The Fit card's settings changed: their pairs ([`Settings::to_query`]) replace those of
    /// [`QUERY_KEYS`], after the others.
    Fit(&'a Settings),
}

/// `href` after `edit`; `None` when `href` is not an absolute URL, or `edit` changes nothing.
pub fn edited(href: &str, edit: Edit<'_>) -> Option<String> {
    let mut u = Url::parse(href).ok()?;
    let mut q: Vec<(String, String)> = u.query_pairs().into_owned().collect();
    let remote = param(u.query().unwrap_or(""), "url").is_some();
    match edit {
        Edit::Opened(text) => {
            set(&mut q, "url", text.trim());
            q.retain(|(k, _)| k != "tensor");
        }
        Edit::Local => q.retain(|(k, _)| k != "url" && k != "tensor"),
        Edit::Tensor(_) if !remote => return None,
        Edit::Tensor(Some(name)) => set(&mut q, "tensor", name),
        Edit::Tensor(None) => q.retain(|(k, _)| k != "tensor"),
        Edit::Tab(tab) => {
            match remote && tab != Tab::Summary {
                true => set(&mut q, "tab", tab.name()),
                false => q.retain(|(k, _)| k != "tab"),
            }
            let hash = hash_with_tab(u.fragment().unwrap_or(""), (!remote).then_some(tab));
            u.set_fragment((!hash.is_empty()).then_some(hash.as_str()));
        }
        Edit::Fit(settings) => {
            q.retain(|(k, _)| !QUERY_KEYS.contains(&k.as_str()));
            q.extend(
                settings
                    .to_query()
                    .into_iter()
                    .map(|(k, v)| (k.to_string(), v)),
            );
        }
    }
    let query = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(&q)
        .finish();
    u.set_query((!query.is_empty()).then_some(query.as_str()));
    let out = String::from(u);
    (out != href).then_some(out)
}

/// The value of `name` in the query `search` (as `location.search` gives it, with or without
/// its `?`), as `URLSearchParams.get` reads it: the first pair of that name, form-decoded;
/// `None` when there is none or its value is blank.
pub fn param(search: &str, name: &str) -> Option<String> {
    let query = search.strip_prefix('?').unwrap_or(search);
    let (_, v) = url::form_urlencoded::parse(query.as_bytes()).find(|(k, _)| k == name)?;
    (!v.trim().is_empty()).then(|| v.into_owned())
}

/// The tab the page's address asks for: `tab=` in the query `search` (a remote model's link,
/// `?url=…&tab=tensors`), else `tab=` in the fragment `hash` (a local file's, `#tab=tensors`,
/// beside other `&`-separated parts), each read as [`param`] reads it; `search` and `hash` are
/// as `location` gives them, with or without their `?` and `#`. `None` when neither names a
/// tab, or the first that names one names none of weightpeek's ([`Tab::parse`]).
pub fn asked_tab(search: &str, hash: &str) -> Option<Tab> {
    let hash = hash.strip_prefix('#').unwrap_or(hash);
    let name = param(search, "tab").or_else(|| param(hash, "tab"))?;
    Tab::parse(&name)
}

/// The page's fragment with `tab` in it (`tab=tensors`; no `tab` part for `None` or Summary,
/// the default), keeping its other `&`-separated parts. Returned without the `#`; empty when
/// nothing is left.
fn hash_with_tab(hash: &str, tab: Option<Tab>) -> String {
    let mut parts: Vec<String> = hash
        .trim_start_matches('#')
        .split('&')
        .filter(|p| !p.is_empty() && p.split_once('=').is_none_or(|(k, _)| k != "tab"))
        .map(str::to_string)
        .collect();
    if let Some(t) = tab.filter(|t| *t != Tab::Summary) {
        parts.push(format!("tab={}", t.name()));
    }
    parts.join("&")
}

/// `URLSearchParams.set`: the first pair named `key` takes `value` and the others go; else
/// the pair is appended.
fn set(q: &mut Vec<(String, String)>, key: &str, value: &str) {
    match q.iter().position(|(k, _)| k == key) {
        Some(i) => {
            q[i].1 = value.to_string();
            let mut seen = 0;
            q.retain(|(k, _)| {
                seen += usize::from(k == key);
                k != key || seen == 1
            });
        }
        None => q.push((key.to_string(), value.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = "https://weightpeek.dev/";

    fn edit(href: &str, e: Edit<'_>) -> String {
        edited(href, e).unwrap_or_else(|| href.to_string())
    }

    #[test]
    fn an_opened_url_is_written_form_encoded_without_a_tensor() {
        let href = format!("{PAGE}?tensor=old&x=1");
        assert_eq!(
            edit(
                &href,
                Edit::Opened("  https://hf.co/o/r/resolve/main/a b.gguf ")
            ),
            format!("{PAGE}?x=1&url=https%3A%2F%2Fhf.co%2Fo%2Fr%2Fresolve%2Fmain%2Fa+b.gguf")
        );
        // `set` keeps the first pair's place and drops the others.
        assert_eq!(
            edit(&format!("{PAGE}?url=a&x=1&url=b"), Edit::Opened("c")),
            format!("{PAGE}?url=c&x=1")
        );
    }

    #[test]
    fn a_tensor_is_written_only_beside_a_remote_model() {
        let remote = format!("{PAGE}?url=o%2Fr");
        let open = edit(&remote, Edit::Tensor(Some("blk.0.attn_q.weight")));
        assert_eq!(open, format!("{PAGE}?url=o%2Fr&tensor=blk.0.attn_q.weight"));
        assert_eq!(edit(&open, Edit::Tensor(None)), remote);
        // A local file (no `url=`, or a blank one): nothing to reproduce, nothing written.
        assert_eq!(edited(PAGE, Edit::Tensor(Some("a"))), None);
        assert_eq!(
            edited(&format!("{PAGE}?url=%20"), Edit::Tensor(Some("a"))),
            None
        );
        // As `URLSearchParams.get`, the first `url=` says.
        assert_eq!(
            edited(&format!("{PAGE}?url=&url=x"), Edit::Tensor(Some("a"))),
            None
        );
        // Closing a preview that was never in the address changes nothing.
        assert_eq!(edited(&remote, Edit::Tensor(None)), None);
    }

    #[test]
    fn a_local_file_drops_the_remote_models_url_and_tensor() {
        let href = format!("{PAGE}?url=o%2Fr&tensor=t&tab=histogram#x");
        assert_eq!(edit(&href, Edit::Local), format!("{PAGE}?tab=histogram#x"));
        assert_eq!(edit(&format!("{PAGE}?url=o%2Fr"), Edit::Local), PAGE);
    }

    #[test]
    fn the_tab_goes_in_the_query_for_a_remote_model_else_in_the_fragment() {
        let remote = format!("{PAGE}?url=o%2Fr");
        assert_eq!(
            edit(&remote, Edit::Tab(Tab::Tensors)),
            format!("{PAGE}?url=o%2Fr&tab=tensors")
        );
        // Summary is never written; a fragment's tab goes when the query has it.
        let both = format!("{PAGE}?url=o%2Fr&tab=tensors#tab=histogram&k=v");
        assert_eq!(
            edit(&both, Edit::Tab(Tab::Summary)),
            format!("{remote}#k=v")
        );
        assert_eq!(
            edit(
                &format!("{PAGE}?tab=histogram#k=v"),
                Edit::Tab(Tab::Tensors)
            ),
            format!("{PAGE}#k=v&tab=tensors")
        );
        // An emptied fragment leaves no bare `#`; a tab already there changes nothing.
        assert_eq!(
            edit(&format!("{PAGE}#tab=histogram"), Edit::Tab(Tab::Summary)),
            PAGE
        );
        assert_eq!(
            edited(&format!("{PAGE}#tab=histogram"), Edit::Tab(Tab::Histogram)),
            None
        );
    }

    #[test]
    fn the_fit_settings_replace_their_pairs_after_the_others() {
        let s = Settings {
            gpus: vec!["24GiB".into(), "8GiB".into()],
            ram: "64GiB".into(),
            ..Settings::default()
        };
        let href = format!("{PAGE}?gpu=1&url=o%2Fr&ram=2&kv=q4_0#tab=fit");
        let fit = "gpu=24GiB&gpu=8GiB&ram=64GiB&kv=f16&margin=1GiB";
        let want = format!("{PAGE}?url=o%2Fr&{fit}#tab=fit");
        assert_eq!(edit(&href, Edit::Fit(&s)), want);
        assert_eq!(edited(&want, Edit::Fit(&s)), None);
    }

    #[test]
    fn a_param_is_the_first_pair_of_its_name_form_decoded_and_not_blank() {
        let search = "?url=https%3A%2F%2Fhf.co%2Fo%2Fr+x&tensor=a&url=second";
        assert_eq!(param(search, "url").as_deref(), Some("https://hf.co/o/r x"));
        assert_eq!(param(&search[1..], "tensor").as_deref(), Some("a"));
        // Returned as written (not trimmed); a blank first pair is none, as is a missing one.
        assert_eq!(param("?tensor=%20a%20", "tensor").as_deref(), Some(" a "));
        assert_eq!(param("?url=%20&url=x", "url"), None);
        assert_eq!(param("?urls=x", "url"), None);
        assert_eq!(param("", "url"), None);
    }

    #[test]
    fn the_address_asks_for_a_tab_in_its_query_then_its_fragment() {
        assert_eq!(
            asked_tab("?url=a%2Fb&tab=tensors", "#tab=fit"),
            Some(Tab::Tensors)
        );
        assert_eq!(asked_tab("", "#x=1&tab=metadata"), Some(Tab::Metadata));
        assert_eq!(asked_tab("?tab=%20Histogram", ""), Some(Tab::Histogram));
        assert_eq!(asked_tab("?tab=", "#tab=fit"), Some(Tab::Fit));
        assert_eq!(asked_tab("?tab=", "tab="), None);
        assert_eq!(asked_tab("?table=1", ""), None);
        assert_eq!(asked_tab("", ""), None);
        // A name that is no tab is none, and the fragment is not asked after it.
        assert_eq!(asked_tab("?tab=nonsense", "#tab=fit"), None);
        // As `URLSearchParams.get`: the first pair of the name counts, a bare `tab` is blank.
        assert_eq!(asked_tab("?tab&tab=fit", ""), None);
        assert_eq!(asked_tab("?tab&tab=fit", "#tab=edit"), Some(Tab::Edit));
    }

    #[test]
    fn the_fragment_keeps_its_other_parts() {
        assert_eq!(hash_with_tab("", Some(Tab::Tensors)), "tab=tensors");
        assert_eq!(hash_with_tab("#tab=fit", Some(Tab::Summary)), "");
        assert_eq!(
            hash_with_tab("#a=1&tab=fit&b", Some(Tab::Edit)),
            "a=1&b&tab=edit"
        );
        assert_eq!(hash_with_tab("#a=1&tab=fit", None), "a=1");
        // What is written is read back.
        for t in Tab::ALL.into_iter().filter(|t| *t != Tab::Summary) {
            let h = hash_with_tab("#x=2", Some(t));
            assert_eq!(asked_tab("", &h), Some(t));
        }
    }

    #[test]
    fn an_address_that_is_not_a_url_is_left_alone() {
        assert_eq!(edited("not a url", Edit::Local), None);
    }
}
