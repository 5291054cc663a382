//! A zip-format checkpoint (`torch.save` since 1.6): its members, its pickles read and judged,
//! each tensor's storage located in its member (stored or deflated).

use super::*;

/// The tensors of a zip-format checkpoint whose central directory (`end`, `entries`) was read
/// from the bytes `held` (the file is `size` bytes; `prefix` its first bytes): the model, or
/// the bytes to read next ([`Stop::NeedRange`]), or why the archive cannot be read.
pub fn zip_listing(
    held: &Held,
    size: u64,
    prefix: &[u8],
    end: &zip::EndRecord,
    entries: &[Entry],
) -> Result<Model, Stop> {
    // Members by name, as PyTorch's reader finds them: case-insensitively, the last of
    // several with one name.
    let mut index: std::collections::HashMap<String, usize> = Default::default();
    let mut dup_names: Vec<&str> = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        if index.insert(e.name.to_lowercase(), i).is_some() {
            dup_names.push(&e.name);
        }
    }
    let by_name = |n: &str| index.get(&n.to_lowercase()).map(|&i| &entries[i]);
    let mut chosen = zip_pickles::choose(entries, &by_name, end.cd_offset)?;
    let (main, constants) = (chosen.main, chosen.constants);
    let mut warnings = std::mem::take(&mut chosen.warnings);
    let root = dir_of(&main.name).to_string();
    let slash = if root.is_empty() { "" } else { "/" };
    let torchscript = constants.is_some()
        || entries
            .iter()
            .any(|e| e.name.starts_with(&format!("{root}{slash}code/")));
    let read = zip_pickles::read(held, end.cd_offset, chosen)?;
    // The main pickle's error first: it is the listing's.
    let errors: Vec<Error> = read.trees.iter().filter_map(|t| t.error.clone()).collect();
    let pickles = read.trees;
    let mut metadata = Vec::new();
    let kind = if torchscript { "torchscript" } else { "zip" };
    meta(
        &mut metadata,
        "pytorch.format",
        0,
        text(if torchscript {
            "TorchScript archive (torch.jit.save)"
        } else {
            "zip (torch.save, PyTorch 1.6 and later)"
        }),
    );
    meta(&mut metadata, "pytorch.archive", 0, text(root.clone()));
    for (key, member) in [
        ("pytorch.version", "version"),
        ("pytorch.byteorder", "byteorder"),
    ] {
        let Some(e) = by_name(&format!("{root}{slash}{member}"))
            .or_else(|| by_name(&format!("{root}{slash}.data/{member}")))
        else {
            continue;
        };
        if !e.is_stored() {
            continue;
        }
        let local = held.from(e.local_header).unwrap_or(&[]);
        let v = zip::data_offset(local, e, end.cd_offset)
            .ok()
            .and_then(|s| held.get(s, e.compressed.min(64)))
            .map(|b| String::from_utf8_lossy(b).trim().to_string());
        if let Some(v) = v {
            if key == "pytorch.byteorder" && v != "little" {
                warnings.push(Warning {
                    field: e.name.clone(),
                    offset: e.local_header,
                    message: format!(
                        "the storages are {v}-endian: values are read as little-endian"
                    ),
                });
            }
            meta(&mut metadata, key, e.local_header, text(v));
        }
    }
    if let Some(t) = pickles.first() {
        meta(
            &mut metadata,
            "pickle.protocol",
            t.start,
            Value::U32(u32::from(t.pickle.protocol)),
        );
    }
    meta(
        &mut metadata,
        "zip.members",
        end.cd_offset,
        Value::U64(entries.len() as u64),
    );
    if end.zip64 {
        meta(
            &mut metadata,
            "zip.zip64",
            end.end_offset,
            Value::Bool(true),
        );
    }
    let mut archive = Archive {
        kind,
        ..Default::default()
    };
    let mut tensors = Vec::new();
    let mut storage_index: std::collections::HashMap<String, usize> = Default::default();
    for name in &dup_names {
        warnings.push(Warning {
            field: format!("zip member \"{name}\""),
            offset: end.cd_offset,
            message: "the archive has several members of this name (compared without case): \
                      PyTorch reads the last; every pickle is checked"
                .into(),
        });
    }
    for t in &pickles {
        let (e, start, p) = (&t.entry, &t.start, &t.pickle);
        let stem = e.name.strip_suffix(".pkl").unwrap_or(&e.name).to_string();
        let found = find_tensors(p, p.root);
        if found.truncated {
            warnings.push(Warning {
                field: e.name.clone(),
                offset: *start,
                message: format!(
                    "the value tree is deeper than {MAX_NAME_DEPTH} or larger than {MAX_VISITS} \
                     nodes: tensors past that are not listed"
                ),
            });
        }
        let is_constants = e.name.ends_with("constants.pkl");
        for t in &found.tensors {
            let member = format!("{stem}/{}", t.storage.key);
            let idx = match storage_index.get(&member) {
                Some(&i) => Some(i),
                None => by_name(&member).map(|m| {
                    let local = held.from(m.local_header).unwrap_or(&[]);
                    let (data, verified) = match zip::data_offset(local, m, end.cd_offset) {
                        Ok(d) => (d, true),
                        Err(_) => (
                            zip::torch_data_offset(m, m.name.len() as u64).unwrap_or(u64::MAX),
                            false,
                        ),
                    };
                    archive.storages.push(StorageInfo {
                        key: t.storage.key.clone(),
                        member: member.clone(),
                        header: m.local_header,
                        data,
                        bytes: m.size,
                        verified,
                    });
                    let i = archive.storages.len() - 1;
                    storage_index.insert(member.clone(), i);
                    i
                }),
            };
            if let Some(m) = by_name(&member).filter(|m| idx.is_some() && !m.is_stored()) {
                archive.not_in_place.push((
                    tensors.len(),
                    format!(
                        "its storage {} is a compressed zip member (method {}): its values are \
                         not in the file as they are",
                        m.name, m.method
                    ),
                ));
            }
            let data = idx.map(|i| (archive.storages[i].data, archive.storages[i].bytes));
            let mut t = t.clone();
            if is_constants {
                t.name = if t.name.is_empty() {
                    "constants".into()
                } else {
                    format!("constants.{}", t.name)
                };
            }
            if t.name.is_empty() {
                t.name = "tensor".into();
            }
            if !is_contiguous(&t.shape, &t.stride) {
                archive.strided.push((tensors.len(), t.stride.clone()));
            }
            tensors.push(tensor_of(&t, data));
            archive.tensor_storage.push(idx);
        }
        archive.skipped.extend(found.skipped);
        archive
            .pickles
            .push(info(e.name.clone(), p, *start, t.error.as_ref()));
    }
    let header_size = pickles
        .iter()
        .map(|t| t.pickle.end.saturating_sub(t.start))
        .chain(read.others.iter().map(|o| o.len))
        .sum::<u64>()
        .saturating_add(end.cd_size);
    archive.pickles.extend(read.others);
    archive.unchecked = read.unchecked;
    let mut errors = errors.into_iter();
    let first = errors.next();
    for e in errors {
        warnings.push(Warning {
            field: e.field.clone(),
            offset: e.offset,
            message: e.to_string(),
        });
    }
    let mut m = model(
        kind,
        size,
        prefix.to_vec(),
        Listed {
            metadata,
            tensors,
            warnings,
            archive,
            header_size,
        },
    );
    m.error = first;
    Ok(m)
}
