//! The `<weightpeek-view>` element's attributes as plain state, without the DOM: what each
//! attribute change does (a new `src` reloads and drops a tensor the reader chose; `tab`,
//! `tensor`, `filter` and the Fit attributes only change the view shown, as a list of
//! [`Act`]s), which tab is first, which tensor's preview to open, what showing a model does,
//! and the element's `data-state` values. `src/web/widget.rs` keeps one [`Attributes`] and
//! carries out what it says.

use crate::remote::hub::endpoint_or_default;
use crate::text;
use crate::view::errors::Failure;
use crate::view::export::Kind;
use crate::view::fit::{Settings, QUERY_KEYS};
use crate::view::node::{el, Node};
use crate::view::report::Need;
use crate::view::tabs::Tab;

/// The element's `data-state`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataState {
    /// Nothing to show (no `src`, or the element was removed).
    Idle,
    /// A header is being read.
    Loading,
    /// The model is shown.
    Ready,
    /// It failed (or was read only in part).
    Error,
}

impl DataState {
    /// The attribute's value (and the `weightpeek-state` event's detail).
    pub fn name(self) -> &'static str {
        match self {
            DataState::Idle => "idle",
            DataState::Loading => "loading",
            DataState::Ready => "ready",
            DataState::Error => "error",
        }
    }

    /// Whether a view being made to take another's place reports this state (it settled).
    pub fn settled(self) -> bool {
        matches!(self, DataState::Ready | DataState::Error)
    }

    /// The state once a model is shown: [`DataState::Error`] when it was read only in part
    /// (`partial`: the model carries an error), else [`DataState::Ready`]. The page's
    /// `body[data-state]` takes the same names.
    pub fn shown(partial: bool) -> DataState {
        if partial {
            DataState::Error
        } else {
            DataState::Ready
        }
    }
}

/// Where a change of the element's state goes ([`StateLine`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StateOut {
    /// On the element: its `data-state` and a `weightpeek-state` event.
    Show(DataState),
    /// To the quiet view's `on_settled` function (`ready` or `error`).
    Tell(DataState),
    /// Nowhere.
    Keep,
}

/// The element's state as one view sees it: the last state set, whether the view is quiet (a
/// view being made to take another's place: its states stay off the element and only a
/// settled one is told, until it wakes), and whether it was retired (replaced: dropping it
/// leaves the element's state).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StateLine {
    last: DataState,
    quiet: bool,
    retired: bool,
}

impl StateLine {
    /// A view's line, quiet or not; its state is [`DataState::Idle`] until set.
    pub fn new(quiet: bool) -> StateLine {
        StateLine {
            last: DataState::Idle,
            quiet,
            retired: false,
        }
    }

    /// The view's state is `state` now: where that goes.
    pub fn set(&mut self, state: DataState) -> StateOut {
        self.last = state;
        match (self.quiet, state.settled()) {
            (false, _) => StateOut::Show(state),
            (true, true) => StateOut::Tell(state),
            (true, false) => StateOut::Keep,
        }
    }

    /// The view is the element's now, whose `data-state` is `shown`: the last state is shown
    /// if it differs (a quiet view only; once).
    pub fn wake(&mut self, shown: Option<&str>) -> StateOut {
        if !std::mem::take(&mut self.quiet) || shown == Some(self.last.name()) {
            return StateOut::Keep;
        }
        StateOut::Show(self.last)
    }

    /// Another view took this one's place.
    pub fn retire(&mut self) {
        self.retired = true;
    }

    /// The view is dropped (the element was removed, or replaced): nothing is loading any
    /// more, unless another view took this one's place.
    pub fn dropped(&mut self) -> StateOut {
        if self.retired {
            return StateOut::Keep;
        }
        self.set(DataState::Idle)
    }
}

/// The element's frame, in its shadow root's container: the status line (`p.wp-status`,
/// `role="status"`), the error box (`div.error`, `role="alert"`, `data-testid="error"`), both
/// hidden, and the body the view is drawn in (`div.wp-body`: it scrolls, but `tabindex="-1"`
/// keeps it from being a stop of its own for Tab, as Firefox makes scroll containers).
pub fn frame() -> [Node; 3] {
    [
        el("p", "wp-status")
            .attr("role", "status")
            .attr("hidden", ""),
        el("div", "error")
            .attr("role", "alert")
            .attr("data-testid", "error")
            .attr("hidden", ""),
        el("div", "wp-body").attr("tabindex", "-1"),
    ]
}

/// What to do about the `tensor` attribute once a model is shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TensorAction {
    /// Nothing (no tensor named, or its preview is shown already).
    Keep,
    /// Open the preview of the model's tensor at this index.
    Open(usize),
    /// The model has no such tensor: show this.
    Missing(Failure),
}

/// One thing the element's view does to the model it shows ([`Attributes::shown_acts`]).
#[derive(Debug, Clone, PartialEq)]
pub enum Act {
    /// Plan the Fit card again with the Fit attributes' settings
    /// ([`Attributes::fit_settings`]).
    Fit,
    /// Do this about the `tensor` attribute.
    Tensor(TensorAction),
    /// Show this tab (not as the person's choice).
    Tab(Tab),
    /// The view's state is this now.
    State(DataState),
    /// Open the preview of this tensor as the reader's own choice (as a click on its row: the
    /// Preview tab is shown, with the focus).
    ReaderTensor(usize),
    /// Download this export, as its button does.
    Export(Kind),
}

/// The attributes given and what the view shows of them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Attributes {
    /// `tab`, as given.
    tab: Option<String>,
    /// `tensor`, as given (never empty).
    tensor: Option<String>,
    /// The tensor whose preview is open now (by the attribute or by the reader).
    shown: Option<String>,
    /// The tensor attribute was last set by the reader opening a preview: a new `src` drops
    /// it rather than look for that tensor in another model.
    from_reader: bool,
    /// The `tensor` attribute is opening a preview now (so it is not the reader's).
    pub applying: bool,
    /// `filter`, as given.
    pub filter: String,
    /// `endpoint`, as given (the Hub endpoint for Hub URL forms of later `src` values:
    /// [`Attributes::endpoint`]).
    pub endpoint: Option<String>,
    /// The Fit attributes given: (name, value).
    fit: Vec<(&'static str, String)>,
    /// The names of the tensors of the model shown (none while no model is).
    tensors: Vec<String>,
    /// A tensor the reader opened in the lean module's view, to open as the reader's choice
    /// once the model is shown ([`Attributes::reader_tensor`]).
    pub reader_tensor: Option<String>,
    /// An export asked for before the model was shown, done once it is.
    pub export: Option<Kind>,
}

impl Attributes {
    /// A new `src` (or files): the view shown is gone. Returns whether the `tensor`
    /// attribute must be removed (the reader had chosen it in the model before).
    pub fn new_model(&mut self) -> bool {
        self.shown = None;
        let drop = std::mem::take(&mut self.from_reader);
        if drop {
            self.tensor = None;
        }
        drop
    }

    /// The view was stopped: no model, and so no preview, is shown.
    pub fn stopped(&mut self) {
        self.shown = None;
        self.tensors.clear();
    }

    /// A model whose tensors are named `tensors` is shown.
    pub fn model_shown(&mut self, tensors: Vec<String>) {
        self.tensors = tensors;
    }

    /// The index of the tensor the reader opened in the lean module's view, if the model
    /// shown has it (asked once: it is gone after).
    pub fn reader_tensor(&mut self) -> Option<usize> {
        let name = self.reader_tensor.take()?;
        self.tensors.iter().position(|t| *t == name)
    }

    /// What the lean module's `need` asks of the full one ([`Need::detail`]), in the model
    /// shown.
    pub fn need_detail(&self, need: Need) -> Option<(&'static str, String)> {
        need.detail(&self.tensors)
    }

    /// `tab` set to `name`: the tab to show ([`Attributes::first_tab`]).
    pub fn set_tab(&mut self, name: Option<String>) -> Vec<Act> {
        self.tab = name;
        vec![Act::Tab(self.first_tab())]
    }

    /// `tensor` set to `name`: the echo of the reader's own choice changes nothing; anything
    /// else is the page's. Its preview opens (once the model is shown), and the tab to show
    /// may be Preview now.
    pub fn set_tensor(&mut self, name: Option<String>) -> Vec<Act> {
        if name != self.shown {
            self.from_reader = false;
        }
        self.tensor = name.filter(|n| !n.is_empty());
        vec![
            Act::Tensor(self.tensor_action()),
            Act::Tab(self.first_tab()),
        ]
    }

    /// The preview of `name` was opened (or closed: `None`), by the attribute while
    /// [`Attributes::applying`], else by the reader.
    pub fn previewed(&mut self, name: Option<&str>) {
        self.shown = name.map(str::to_string);
        if !self.applying {
            self.from_reader = true;
        }
    }

    /// The Hub endpoint `src` values are read with: the `endpoint` attribute's, else
    /// huggingface.co ([`endpoint_or_default`]).
    pub fn endpoint(&self) -> String {
        endpoint_or_default(self.endpoint.as_deref())
    }

    /// The tab to show: the one asked for; without one, Preview when a tensor is named, else
    /// Summary (also for an unknown name).
    pub fn first_tab(&self) -> Tab {
        match (self.tab.as_deref(), self.tensor.is_some()) {
            (Some(t), _) => Tab::parse(t).unwrap_or(Tab::Summary),
            (None, true) => Tab::Preview,
            (None, false) => Tab::Summary,
        }
    }

    /// What showing a model (read in part: `partial`) does, in order: the Fit attributes'
    /// settings (the `full` module's view only: the lean one has no Fit card, the full one
    /// reads the attributes again), the `tensor` attribute, the tab, the state; then what the
    /// reader asked of the lean module's view meanwhile: a tensor opened, an export.
    pub fn shown_acts(&mut self, full: bool, partial: bool) -> Vec<Act> {
        let mut acts: Vec<Act> = full.then_some(Act::Fit).into_iter().collect();
        acts.push(Act::Tensor(self.tensor_action()));
        acts.push(Act::Tab(self.first_tab()));
        acts.push(Act::State(DataState::shown(partial)));
        acts.extend(self.reader_tensor().map(Act::ReaderTensor));
        acts.extend(self.export.take().map(Act::Export));
        acts
    }

    /// What to do about `tensor` in the model shown.
    pub fn tensor_action(&self) -> TensorAction {
        let Some(name) = self.tensor.as_deref() else {
            return TensorAction::Keep;
        };
        if self.shown.as_deref() == Some(name) {
            return TensorAction::Keep;
        }
        match self.tensors.iter().position(|t| t == name) {
            Some(i) => TensorAction::Open(i),
            None => TensorAction::Missing(Failure::new(
                "No such tensor",
                format!(
                    "This model has no tensor \"{}\" (the tensor attribute).",
                    text::escape(name)
                ),
            )),
        }
    }

    /// A Fit attribute set to `value` (`None`: removed): the Fit card plans again with the
    /// settings (in the `full` module's view: the lean one has none). Attributes other than
    /// [`QUERY_KEYS`] are ignored.
    pub fn set_fit(&mut self, name: &str, value: Option<String>, full: bool) -> Vec<Act> {
        let Some(key) = QUERY_KEYS.into_iter().find(|k| *k == name) else {
            return Vec::new();
        };
        self.fit.retain(|(k, _)| *k != key);
        if let Some(v) = value {
            self.fit.push((key, v));
        }
        full.then_some(Act::Fit).into_iter().collect()
    }

    /// The Fit card's settings from the Fit attributes (the defaults when none is given or
    /// they do not read).
    pub fn fit_settings(&self) -> Settings {
        Settings::from_query(self.fit.iter().map(|(k, v)| (*k, v.as_str()))).unwrap_or_default()
    }
}

/// What the element's `open()` says when given no file: not a `File`, a `Blob`, an array of
/// them or a `FileList`.
pub fn nothing_to_open() -> Failure {
    Failure::new(
        "Nothing to open",
        "open() takes a File or Blob, an array of them, or a FileList.",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_without_a_file_says_what_it_takes() {
        let f = nothing_to_open();
        assert_eq!(
            f.joined(),
            "Nothing to open: open() takes a File or Blob, an array of them, or a FileList."
        );
    }

    fn names() -> Vec<String> {
        vec!["a.weight".into(), "b.weight".into()]
    }

    /// Attributes of an element showing a model of the tensors [`names`].
    fn showing() -> Attributes {
        let mut a = Attributes::default();
        a.model_shown(names());
        a
    }

    #[test]
    fn the_first_tab_is_the_one_asked_else_preview_for_a_tensor_else_summary() {
        let mut a = Attributes::default();
        assert_eq!(a.first_tab(), Tab::Summary);
        a.set_tensor(Some("b.weight".into()));
        assert_eq!(a.first_tab(), Tab::Preview);
        assert_eq!(a.set_tab(Some("checks".into())), [Act::Tab(Tab::Checks)]);
        assert_eq!(a.set_tab(Some("nope".into())), [Act::Tab(Tab::Summary)]);
        a.set_tensor(Some(String::new()));
        assert_eq!(a.set_tab(None), [Act::Tab(Tab::Summary)]);
    }

    #[test]
    fn a_named_tensor_is_opened_once_or_said_missing() {
        let mut a = showing();
        assert_eq!(a.tensor_action(), TensorAction::Keep);
        assert_eq!(
            a.set_tensor(Some("b.weight".into())),
            [Act::Tensor(TensorAction::Open(1)), Act::Tab(Tab::Preview)]
        );
        assert_eq!(a.tensor_action(), TensorAction::Open(1));
        a.applying = true;
        a.previewed(Some("b.weight"));
        a.applying = false;
        assert_eq!(a.tensor_action(), TensorAction::Keep);
        a.set_tensor(Some("c\n".into()));
        let TensorAction::Missing(f) = a.tensor_action() else {
            panic!("c is no tensor of the model")
        };
        assert_eq!(f.headline, "No such tensor");
        assert_eq!(
            f.details,
            "This model has no tensor \"c\\n\" (the tensor attribute)."
        );
    }

    #[test]
    fn a_new_src_drops_the_readers_tensor_but_keeps_the_pages() {
        let mut a = showing();
        // The page's tensor stays for the next model.
        a.set_tensor(Some("a.weight".into()));
        a.applying = true;
        a.previewed(Some("a.weight"));
        a.applying = false;
        assert!(!a.new_model());
        assert_eq!(a.tensor_action(), TensorAction::Open(0));
        // The reader's choice, and its echo in the attribute, are dropped.
        a.previewed(Some("b.weight"));
        a.set_tensor(Some("b.weight".into()));
        assert!(a.new_model());
        assert_eq!(a.tensor_action(), TensorAction::Keep);
        assert_eq!(a.first_tab(), Tab::Summary);
        // The page naming another tensor after the reader's makes it the page's.
        a.previewed(Some("b.weight"));
        a.set_tensor(Some("a.weight".into()));
        assert!(!a.new_model());
    }

    #[test]
    fn the_readers_tensor_is_found_once_in_the_model_shown_and_needs_name_it() {
        let mut a = showing();
        a.reader_tensor = Some("b.weight".into());
        assert_eq!(a.reader_tensor(), Some(1));
        assert_eq!(a.reader_tensor(), None);
        a.reader_tensor = Some("c.weight".into());
        assert_eq!(a.reader_tensor(), None);
        assert_eq!(a.reader_tensor, None);
        assert_eq!(
            a.need_detail(Need::Tensor(0)),
            Some(("tensor", "a.weight".to_string()))
        );
        // A stopped view shows no model: no tensor, nothing named.
        a.set_tensor(Some("a.weight".into()));
        a.stopped();
        assert!(matches!(a.tensor_action(), TensorAction::Missing(_)));
        assert_eq!(a.need_detail(Need::Tensor(0)), None);
        a.reader_tensor = Some("a.weight".into());
        assert_eq!(a.reader_tensor(), None);
    }

    #[test]
    fn showing_a_model_does_the_attributes_then_what_the_reader_asked() {
        let mut a = showing();
        a.set_fit("ctx", Some("8192".into()), false);
        a.set_tensor(Some("b.weight".into()));
        a.reader_tensor = Some("a.weight".into());
        a.export = Some(Kind::Csv);
        assert_eq!(
            a.shown_acts(true, false),
            [
                Act::Fit,
                Act::Tensor(TensorAction::Open(1)),
                Act::Tab(Tab::Preview),
                Act::State(DataState::Ready),
                Act::ReaderTensor(0),
                Act::Export(Kind::Csv),
            ]
        );
        // Asked once; the lean module has no Fit card; a model read in part is an error.
        let mut b = showing();
        assert_eq!(
            b.shown_acts(false, true),
            [
                Act::Tensor(TensorAction::Keep),
                Act::Tab(Tab::Summary),
                Act::State(DataState::Error),
            ]
        );
        let again = a.shown_acts(false, false);
        assert_eq!(again.len(), 3);
        assert_eq!(again[2], Act::State(DataState::Ready));
    }

    #[test]
    fn the_endpoint_is_the_attributes_else_huggingface() {
        use crate::remote::hub::DEFAULT_ENDPOINT;
        let mut a = Attributes::default();
        assert_eq!(a.endpoint(), DEFAULT_ENDPOINT);
        assert_eq!(a.endpoint(), "https://huggingface.co");
        a.endpoint = Some("https://hf-mirror.example/".into());
        assert_eq!(a.endpoint(), "https://hf-mirror.example");
        a.endpoint = Some("  ".into());
        assert_eq!(a.endpoint(), DEFAULT_ENDPOINT);
    }

    #[test]
    fn only_fit_attributes_change_the_fit_settings() {
        let mut a = Attributes::default();
        assert_eq!(a.set_fit("height", Some("300".into()), true), []);
        assert_eq!(a.fit_settings(), Settings::default());
        let acts = a.set_fit("ctx", Some("8192".into()), true);
        let s = a.fit_settings();
        assert_eq!(acts, [Act::Fit]);
        assert_ne!(s, Settings::default());
        assert_eq!(
            s,
            Settings::from_query([("ctx", "8192")]).unwrap_or_default()
        );
        // The lean module keeps the attribute for the full one, and plans nothing.
        assert_eq!(a.set_fit("ctx", None, false), []);
        assert_eq!(a.fit_settings(), Settings::default());
    }

    #[test]
    fn a_quiet_view_tells_only_settled_states_and_shows_the_last_when_woken() {
        let mut l = StateLine::new(true);
        assert_eq!(l.set(DataState::Loading), StateOut::Keep);
        assert_eq!(l.set(DataState::Ready), StateOut::Tell(DataState::Ready));
        // The element shows the lean view's "ready" already: no second event.
        let mut shown_ready = l;
        assert_eq!(shown_ready.wake(Some("ready")), StateOut::Keep);
        assert_eq!(l.wake(Some("loading")), StateOut::Show(DataState::Ready));
        assert_eq!(l.wake(Some("loading")), StateOut::Keep);
        assert_eq!(l.set(DataState::Error), StateOut::Show(DataState::Error));
        assert_eq!(l.dropped(), StateOut::Show(DataState::Idle));
        let mut retired = StateLine::new(false);
        retired.retire();
        assert_eq!(retired.dropped(), StateOut::Keep);
        let mut quiet = StateLine::new(true);
        assert_eq!(quiet.dropped(), StateOut::Keep);
    }

    #[test]
    fn the_frame_is_a_hidden_status_a_hidden_error_box_and_the_body() {
        let [status, error, body] = frame();
        assert_eq!((status.tag, status.get_attr("role")), ("p", Some("status")));
        assert_eq!(status.get_attr("hidden"), Some(""));
        assert_eq!(error.get_attr("data-testid"), Some("error"));
        assert_eq!(
            (error.get_attr("role"), error.get_attr("hidden")),
            (Some("alert"), Some(""))
        );
        assert_eq!(
            (body.class.as_str(), body.get_attr("tabindex")),
            ("wp-body", Some("-1"))
        );
        assert_eq!(body.get_attr("hidden"), None);
    }

    #[test]
    fn data_states_have_their_names_and_settle_when_done() {
        let all = [
            DataState::Idle,
            DataState::Loading,
            DataState::Ready,
            DataState::Error,
        ];
        let names: Vec<_> = all.iter().map(|s| s.name()).collect();
        assert_eq!(names, ["idle", "loading", "ready", "error"]);
        let settled: Vec<_> = all.iter().map(|s| s.settled()).collect();
        assert_eq!(settled, [false, false, true, true]);
        assert_eq!(DataState::shown(true).name(), "error");
        assert_eq!(DataState::shown(false).name(), "ready");
    }
}
