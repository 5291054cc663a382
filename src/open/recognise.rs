//! What the given files are, from their names alone (their bytes are sniffed when read): a
//! model file, a numbered part of a set (`x-00001-of-00003.gguf`, llama.cpp's gguf-split
//! naming; `model-00001-of-00002.safetensors`, transformers' shards), a safetensors index
//! (`*.safetensors.index.json`), a `config.json`, or a sidecar that is not read. Of several
//! files given together, [`plan`] picks the one model they make and says which files do not
//! belong to it (another set's part, a second copy, another model) and which are missing.

pub use super::set::Stray;
use crate::remote::shards::split_name;

/// What one file is, by its name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Role {
    /// A model file on its own (`.gguf`, `.safetensors`, or a name without a known extension,
    /// whose bytes decide).
    Model,
    /// Part `no` of `count` of a set: the directory and stem before `-0000N-of-0000M`, and the
    /// extension (`.gguf` or `.safetensors`).
    Part {
        /// Directory prefix (`dir/`, or empty) and stem, e.g. `dir/model`.
        stem: String,
        /// 1-based part number.
        no: u32,
        /// Parts in the set.
        count: u32,
        /// `.gguf` or `.safetensors`.
        ext: &'static str,
    },
    /// A `*.safetensors.index.json` (names the shards and their tensors).
    Index,
    /// `config.json` or AutoGPTQ's `quantize_config.json` (bits and group size of quantised
    /// safetensors layouts).
    Config,
    /// A file of a model repository that is not read (`tokenizer.json`, `README.md`, …).
    Sidecar,
}

/// The last path segment of `name` (`/` or `\` separated), without a URL query.
pub fn file_name(name: &str) -> &str {
    let name = name.split(['?', '#']).next().unwrap_or(name);
    name.rsplit(['/', '\\']).next().unwrap_or(name)
}

/// The directory prefix of `name` including its separator (`dir/`), or empty.
pub fn dir_prefix(name: &str) -> &str {
    let path = name.split(['?', '#']).next().unwrap_or(name);
    path.rfind(['/', '\\']).map_or("", |i| &path[..=i])
}

/// `name` with `./` segments and doubled separators removed, so two spellings of one path
/// compare equal (`./dir//x.gguf` and `dir/x.gguf`).
pub fn normal(name: &str) -> String {
    let sep = if name.contains('\\') && !name.contains('/') {
        '\\'
    } else {
        '/'
    };
    let absolute = name.starts_with(sep);
    let parts: Vec<&str> = name
        .split(sep)
        .filter(|s| !s.is_empty() && *s != ".")
        .collect();
    let joined = parts.join(&sep.to_string());
    if absolute {
        format!("{sep}{joined}")
    } else {
        joined
    }
}

/// Endings of numbered parts: llama.cpp's GGUF splits, safetensors shards, and the PyTorch
/// shards `pytorch_model-00001-of-00002.bin` that transformers writes.
pub const PART_EXTS: [&str; 3] = [".gguf", ".safetensors", ".bin"];

/// The role of a file named `name` (a path or a bare file name).
pub fn role(name: &str) -> Role {
    let file = file_name(name);
    let lower = file.to_ascii_lowercase();
    if lower.ends_with(".index.json") {
        return Role::Index;
    }
    if lower == "config.json" || lower == "quantize_config.json" {
        return Role::Config;
    }
    for ext in PART_EXTS {
        if let Some((stem, no, count)) = split_name(file, ext) {
            if count >= 2 && (1..=count).contains(&no) {
                return Role::Part {
                    stem: normal(&format!("{}{stem}", dir_prefix(name))),
                    no,
                    count,
                    ext,
                };
            }
        }
    }
    const SIDECARS: [&str; 10] = [
        ".json", ".md", ".txt", ".model", ".py", ".jinja", ".yaml", ".yml", ".png", ".jpg",
    ];
    if SIDECARS.iter().any(|s| lower.ends_with(s)) || lower == ".gitattributes" {
        return Role::Sidecar;
    }
    Role::Model
}

/// The name of part `no` of the set `stem` … `ext` of `count` parts.
pub fn part_name(stem: &str, no: u32, count: u32, ext: &str) -> String {
    format!("{stem}-{no:05}-of-{count:05}{ext}")
}

/// What the given files make.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// No model file among them.
    Nothing,
    /// One model file.
    Single(String),
    /// Numbered parts of one set: every part's name in order (given or not).
    Parts {
        /// `stem-0000N-of-0000M.ext` for N in 1..=M.
        names: Vec<String>,
        /// `.gguf` or `.safetensors`.
        ext: &'static str,
    },
    /// A safetensors index: read it to learn its shards.
    Index(String),
}

/// The model that files given together make, and what else came with them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// What to open.
    pub target: Target,
    /// A `config.json` (or `quantize_config.json`) given with the model.
    pub config: Option<String>,
    /// Given files that do not belong to the model.
    pub strays: Vec<Stray>,
    /// Given sidecar files that are not read.
    pub ignored: Vec<String>,
}

/// Decides what the files named `names` (in the order given) make: an index wins (its shards
/// are then the model); else the set of the first numbered part given (the other parts of that
/// set by name); else the first model file. Everything else given is a [`Stray`] saying why, or
/// ignored (sidecars), or the config.
pub fn plan(names: &[String]) -> Plan {
    let roles: Vec<Role> = names.iter().map(|n| role(n)).collect();
    let mut out = Plan {
        target: Target::Nothing,
        config: None,
        strays: Vec::new(),
        ignored: Vec::new(),
    };
    let normals: Vec<String> = names.iter().map(|n| normal(n)).collect();
    let mut seen: std::collections::HashSet<&str> = std::collections::HashSet::new();
    let mut duplicate = vec![false; names.len()];
    for (i, n) in normals.iter().enumerate() {
        if !seen.insert(n.as_str()) {
            duplicate[i] = true;
        }
    }
    let stray = |name: &str, why: String| Stray {
        name: name.to_string(),
        why,
    };
    let index = roles.iter().position(|r| *r == Role::Index);
    let first_part = roles.iter().position(|r| matches!(r, Role::Part { .. }));
    // The set chosen: (stem, count, ext) of the parts that belong.
    let set = match (index, first_part) {
        (None, Some(p)) => match &roles[p] {
            Role::Part {
                stem, count, ext, ..
            } => Some((stem.clone(), *count, *ext)),
            _ => None,
        },
        _ => None,
    };
    let single = if index.is_none() && set.is_none() {
        // An ONNX model given with the side file of its external data (whose name says
        // nothing) is the model, whichever comes first.
        let onnx = names.iter().zip(&roles).position(|(n, r)| {
            *r == Role::Model && file_name(n).to_ascii_lowercase().ends_with(".onnx")
        });
        onnx.or_else(|| roles.iter().position(|r| *r == Role::Model))
    } else {
        None
    };
    let mut numbers_seen: std::collections::HashSet<u32> = std::collections::HashSet::new();
    for (i, (name, r)) in names.iter().zip(&roles).enumerate() {
        if duplicate[i] {
            out.strays
                .push(stray(name, "given twice; read once".into()));
            continue;
        }
        match r {
            Role::Index if Some(i) == index => {}
            Role::Index => out.strays.push(stray(
                name,
                format!("a second index; {} is the one read", names[index.unwrap_or(0)]),
            )),
            Role::Config if out.config.is_none() => out.config = Some(name.clone()),
            Role::Config => out
                .strays
                .push(stray(name, "a second config file; not read".into())),
            Role::Sidecar => out.ignored.push(name.clone()),
            // With an index, shards are matched to it once it is read (see `with_index`).
            _ if index.is_some() => {}
            Role::Part {
                stem,
                no,
                count,
                ext,
            } => match &set {
                Some((s, c, e))
                    if s == stem && c == count && e == ext && !numbers_seen.insert(*no) =>
                {
                    out.strays
                        .push(stray(name, format!("a second copy of part {no}")));
                }
                Some((s, c, e)) if s == stem && c == count && e == ext => {}
                Some((s, c, e))
                    if file_name(&part_name(stem, 1, *count, ext))
                        == file_name(&part_name(s, 1, *c, e)) =>
                {
                    let folder = |d: &str| if d.is_empty() { "./".to_string() } else { d.to_string() };
                    out.strays.push(stray(
                        name,
                        format!(
                            "part {no} from another folder ({}); the set is read from {}",
                            folder(dir_prefix(stem)),
                            folder(dir_prefix(s))
                        ),
                    ))
                }
                Some((s, _, _)) => out.strays.push(stray(
                    name,
                    format!(
                        "part {no} of {count} of another model ({}{ext}), not of {}{}",
                        file_name(stem),
                        file_name(s),
                        set.as_ref().map_or("", |x| x.2)
                    ),
                )),
                None => {}
            },
            Role::Model if Some(i) == single => {}
            Role::Model => out.strays.push(stray(
                name,
                match (&single, &set) {
                    (Some(s), _) => format!(
                        "another model file; {} is the one opened (open it on its own, or compare the two)",
                        names[*s]
                    ),
                    _ => "not a part of the set".into(),
                },
            )),
        }
    }
    out.target = match (index, set, single) {
        (Some(ix), _, _) => Target::Index(names[ix].clone()),
        (None, Some((stem, count, ext)), _) => Target::Parts {
            names: (1..=count)
                .map(|n| part_name(&stem, n, count, ext))
                .collect(),
            ext,
        },
        (None, None, Some(s)) => Target::Single(names[s].clone()),
        (None, None, None) => Target::Nothing,
    };
    out
}

/// The shards an index names, as names beside the index (`dir/` + shard file), in the order
/// the files are numbered.
pub fn index_shards(index_name: &str, shard_files: &[String]) -> Vec<String> {
    let dir = dir_prefix(index_name);
    shard_files.iter().map(|f| format!("{dir}{f}")).collect()
}

/// Of given files, those an index does not name (`shards`: the index's shard names as from
/// [`index_shards`]), as strays; model files and parts only. Compared as paths ([`normal`]):
/// `./dir/x` is `dir/x`, a shard of the same name in another folder is not the index's.
pub fn not_in_index(names: &[String], index_name: &str, shards: &[String]) -> Vec<Stray> {
    let wanted: std::collections::HashSet<String> = shards.iter().map(|s| normal(s)).collect();
    names
        .iter()
        .filter(|n| matches!(role(n), Role::Model | Role::Part { .. }))
        .filter(|n| !wanted.contains(&normal(n)))
        .map(|n| Stray {
            name: n.clone(),
            why: format!("not one of the shards {} names", file_name(index_name)),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn roles_by_name() {
        assert_eq!(role("a/b/model.gguf"), Role::Model);
        assert_eq!(role("weights"), Role::Model);
        assert_eq!(role("x.safetensors.index.json"), Role::Index);
        assert_eq!(role("d/config.json"), Role::Config);
        assert_eq!(role("tokenizer.json"), Role::Sidecar);
        assert_eq!(
            role("d/m-00002-of-00003.gguf"),
            Role::Part {
                stem: "d/m".into(),
                no: 2,
                count: 3,
                ext: ".gguf"
            }
        );
        // One of one is a plain file; part 0 or past the count is not a part.
        assert_eq!(role("m-00001-of-00001.gguf"), Role::Model);
        assert_eq!(role("m-00000-of-00002.gguf"), Role::Model);
        assert_eq!(role("m-00003-of-00002.gguf"), Role::Model);
        assert_eq!(file_name("https://h/x/y.gguf?download=true"), "y.gguf");
        assert_eq!(dir_prefix("C:\\m\\y.gguf"), "C:\\m\\");
    }

    #[test]
    fn a_set_with_strays() {
        let p = plan(&names(&[
            "m-00002-of-00003.gguf",
            "m-00001-of-00003.gguf",
            "other-00001-of-00002.gguf",
            "m-00001-of-00003.gguf",
            "lone.gguf",
            "config.json",
            "README.md",
        ]));
        assert_eq!(
            p.target,
            Target::Parts {
                names: names(&[
                    "m-00001-of-00003.gguf",
                    "m-00002-of-00003.gguf",
                    "m-00003-of-00003.gguf"
                ]),
                ext: ".gguf"
            }
        );
        assert_eq!(p.config.as_deref(), Some("config.json"));
        assert_eq!(p.ignored, ["README.md"]);
        let why: Vec<(&str, &str)> = p
            .strays
            .iter()
            .map(|s| (s.name.as_str(), s.why.as_str()))
            .collect();
        assert_eq!(
            why,
            [
                (
                    "other-00001-of-00002.gguf",
                    "part 1 of 2 of another model (other.gguf), not of m.gguf"
                ),
                ("m-00001-of-00003.gguf", "given twice; read once"),
                ("lone.gguf", "not a part of the set"),
            ]
        );
    }

    #[test]
    fn index_wins_and_single_files() {
        let p = plan(&names(&[
            "a-00001-of-00002.safetensors",
            "d/model.safetensors.index.json",
        ]));
        assert_eq!(
            p.target,
            Target::Index("d/model.safetensors.index.json".into())
        );
        assert!(p.strays.is_empty());
        let shards = index_shards(
            "d/model.safetensors.index.json",
            &names(&[
                "model-00001-of-00002.safetensors",
                "model-00002-of-00002.safetensors",
            ]),
        );
        assert_eq!(shards[0], "d/model-00001-of-00002.safetensors");
        let s = not_in_index(
            &names(&[
                "a-00001-of-00002.safetensors",
                "x/model-00001-of-00002.safetensors",
                "./d/model-00002-of-00002.safetensors",
            ]),
            "d/model.safetensors.index.json",
            &shards,
        );
        let strays: Vec<&str> = s.iter().map(|x| x.name.as_str()).collect();
        assert_eq!(
            strays,
            [
                "a-00001-of-00002.safetensors",
                "x/model-00001-of-00002.safetensors"
            ]
        );
        assert_eq!(normal("./d//x/./y.gguf"), "d/x/y.gguf");
        assert_eq!(normal("/a/./b"), "/a/b");
        let p = plan(&names(&["one.gguf", "two.safetensors"]));
        assert_eq!(p.target, Target::Single("one.gguf".into()));
        assert_eq!(p.strays[0].name, "two.safetensors");
        assert!(p.strays[0].why.starts_with("another model file; one.gguf"));
        assert_eq!(plan(&names(&["README.md"])).target, Target::Nothing);
    }
}
