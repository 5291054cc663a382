//! A legacy checkpoint (`_use_new_zipfile_serialization=False`: pickles between raw storage
//! bytes), a tar archive (PyTorch's first format) or a plain pickle.

use super::*;

/// PyTorch's magic number, as the first pickle's value (`0x1950a86a20f9469cfc6c`).
pub(super) fn is_magic(p: &Pickle) -> bool {
    matches!(p.node(p.root), Some(pickle::Node::BigInt(d)) if d == "119547037146038801333356")
}

/// A pickle that is not a PyTorch checkpoint: its imports judged, nothing listed.
/// `torch.load` unpickles it (running what it calls) before it checks the magic number.
pub(super) fn plain_pickle(p: Pickle, buf: &[u8], size: u64) -> Model {
    let mut m = base(Format::PytorchLegacy, size, buf.to_vec());
    m.warnings.push(Warning {
        field: "pickle".into(),
        offset: 0,
        message: "a plain Python pickle, not a PyTorch checkpoint (no magic number): \
                  torch.load and pickle.load unpickle it, running what it calls, before \
                  anything checks what it is"
            .into(),
    });
    meta(
        &mut m.metadata,
        "pickle.protocol",
        0,
        Value::U32(u32::from(p.protocol)),
    );
    m.metadata_count = 1;
    m.header_size = p.end;
    m.detail = crate::format::Detail::Archive(Archive {
        kind: "pickle",
        pickles: vec![info("pickle".into(), &p, 0, None)],
        ..Default::default()
    });
    m
}

/// A tar archive, which `torch.load` opens as PyTorch's first format (before 0.1.10): it
/// unpickles the members `storages` and `tensors` (pickles between raw storage bytes) and
/// `pickle`. They are not read here, so the file is *not fully checked*.
pub(super) fn tar_archive(buf: &[u8], size: u64) -> Model {
    let mut m = base(Format::PytorchLegacy, size, buf.to_vec());
    let ustar = buf.get(257..262) == Some(b"ustar");
    meta(
        &mut m.metadata,
        "pytorch.format",
        0,
        text(if ustar {
            "tar archive (torch.save before PyTorch 0.1.10)"
        } else {
            "tar archive without the ustar magic (old V7 tar, which torch.load opens too)"
        }),
    );
    m.metadata_count = 1;
    m.detail = crate::format::Detail::Archive(Archive {
        kind: "tar",
        unchecked: vec![Unchecked {
            name: "the tar archive's members".into(),
            offset: 0,
            why: "torch.load opens a file whose first 512 bytes are a tar header as PyTorch's \
                  first format and unpickles its storages, tensors and pickle members; \
                  weightpeek does not read tar archives, so their pickles are not checked"
                .into(),
        }],
        ..Default::default()
    });
    m
}

/// One step of reading a legacy checkpoint from its first bytes `buf` (the file is `size`
/// bytes): the model, or how far the bytes must reach ([`Stop::NeedMore`]).
pub fn legacy_step(buf: &[u8], size: u64) -> Result<Model, Stop> {
    if crate::format::sniff::is_tar(buf) {
        return Ok(tar_archive(buf, size));
    }
    let mut at = 0u64;
    let mut pickles = Vec::new();
    for i in 0..5 {
        let rest = buf
            .get(usize::try_from(at).unwrap_or(usize::MAX)..)
            .unwrap_or(&[]);
        let (p, err) = pickle::parse_partial(rest, at, &Limits::DEFAULT);
        let Some(mut e) = err else {
            at = p.end;
            // The first pickle is PyTorch's magic number, or this is a plain pickle.
            if i == 0 && !is_magic(&p) {
                return Ok(plain_pickle(p, buf, size));
            }
            pickles.push(p);
            continue;
        };
        let have = buf.len() as u64;
        let need = match e.kind {
            ErrorKind::Truncated { needed_end, .. } => Some(needed_end),
            // A string or bytes value running past the bytes read so far: its opcode, an
            // 8-byte length at most, and the value (past the file's end it is damage).
            ErrorKind::CountTooLarge { count, .. } => e
                .offset
                .checked_add(9)
                .and_then(|n| n.checked_add(count))
                .filter(|&n| n <= size.saturating_add(8))
                .map(|n| n.min(size)),
            _ => None,
        };
        if have < size && need.is_some_and(|n| n >= have) {
            // The machine starts over on each read, so reads grow by half of what is held at
            // least: a pickle of n bytes is parsed in ~3n bytes' work, not n² / 1 MiB.
            return Err(Stop::NeedMore(
                have.saturating_add(1)
                    .max(need.unwrap_or(0))
                    .max(have.saturating_add(have / 2))
                    .min(size),
            ));
        }
        e.field = format!("legacy checkpoint pickle {} of 5: {}", i + 1, e.field);
        // What was read is kept: the imports before the damage are what a loader would run.
        let start = pickles.last().map_or(0, |q: &Pickle| q.end);
        let mut m = base(Format::PytorchLegacy, size, buf.to_vec());
        let mut archive = Archive {
            kind: "legacy",
            ..Default::default()
        };
        let mut s0 = 0;
        for (k, q) in pickles.iter().enumerate() {
            archive
                .pickles
                .push(info(format!("pickle {} of 5", k + 1), q, s0, None));
            s0 = q.end;
        }
        archive
            .pickles
            .push(info(format!("pickle {} of 5", i + 1), &p, start, Some(&e)));
        m.detail = crate::format::Detail::Archive(archive);
        m.error = Some(e);
        return Ok(m);
    }
    let [magic, version, sys_info, object, keys] =
        <[Pickle; 5]>::try_from(pickles).map_err(|_| {
            Stop::Fail(Error::new(
                "legacy checkpoint",
                0,
                ErrorKind::Invalid("fewer than 5 pickles".into()),
            ))
        })?;
    let mut warnings = Vec::new();
    let mut metadata = Vec::new();
    meta(
        &mut metadata,
        "pytorch.format",
        0,
        text("legacy (torch.save before PyTorch 1.6)"),
    );
    if let Some(v) = version.int_of(version.root) {
        meta(
            &mut metadata,
            "pytorch.protocol_version",
            LEGACY_MAGIC.len() as u64,
            Value::I64(v),
        );
    }
    let little = sys_info.dict_of(sys_info.root).and_then(|d| {
        d.iter().find_map(|(k, v)| {
            (sys_info.str_of(*k) == Some("little_endian"))
                .then(|| matches!(sys_info.node(*v), Some(pickle::Node::Bool(true))))
        })
    });
    if little == Some(false) {
        warnings.push(Warning {
            field: "sys_info".into(),
            offset: object.end,
            message: "saved on a big-endian machine: values are read as little-endian".into(),
        });
    }
    meta(
        &mut metadata,
        "pickle.protocol",
        0,
        Value::U32(u32::from(object.protocol)),
    );
    let found = find_tensors(&object, object.root);
    // Storage keys in the order their bytes follow.
    let key_list: Vec<String> = keys
        .items_of(keys.root)
        .unwrap_or(&[])
        .iter()
        .filter_map(|&k| keys.str_of(k).map(str::to_string))
        .collect();
    meta(
        &mut metadata,
        "pytorch.storages",
        0,
        Value::U64(key_list.len() as u64),
    );
    // Each storage's size from the tensors' persistent ids (one id per storage).
    let mut sizes: std::collections::HashMap<&str, (u64, u64)> = Default::default();
    for t in &found.tensors {
        let root = t
            .storage
            .view_of
            .as_ref()
            .map_or(t.storage.key.as_str(), |v| v.0.as_str());
        if let Some((_, s)) = &t.storage.dtype {
            sizes.entry(root).or_insert((t.storage.numel, *s));
        }
    }
    let mut archive = Archive {
        kind: "legacy",
        ..Default::default()
    };
    let mut cursor = keys.end;
    let mut offsets: std::collections::HashMap<&str, usize> = Default::default();
    for k in &key_list {
        let Some(&(numel, s)) = sizes.get(k.as_str()) else {
            warnings.push(Warning {
                field: format!("storage {k}"),
                offset: cursor,
                message:
                    "no tensor says how large this storage is: storages after it are not located"
                        .into(),
            });
            break;
        };
        let Some(bytes) = numel.checked_mul(s) else {
            break;
        };
        let data = cursor.saturating_add(8);
        // The stored count, when read, must be the persistent id's.
        // The cursor is a file offset (u64): past usize (wasm32: 4 GiB) it is not in `buf`.
        let count = usize::try_from(cursor)
            .ok()
            .and_then(|c| buf.get(c..c.checked_add(8)?));
        if let Some(c) = count {
            let stored = u64::from_le_bytes(c.try_into().unwrap_or([0; 8]));
            // An untyped storage (with _rebuild_tensor_v3) counts bytes.
            if stored != numel && Some(stored) != numel.checked_mul(s) {
                warnings.push(Warning {
                    field: format!("storage {k}"),
                    offset: cursor,
                    message: format!("the file says {stored} elements, the pickle {numel}"),
                });
            }
        }
        archive.storages.push(StorageInfo {
            key: k.clone(),
            member: String::new(),
            header: cursor,
            data,
            bytes,
            verified: true,
        });
        offsets.insert(k.as_str(), archive.storages.len() - 1);
        cursor = data.saturating_add(bytes);
    }
    if cursor > size {
        warnings.push(Warning {
            field: "storages".into(),
            offset: keys.end,
            message: format!(
                "the storages end at byte {cursor}, past the end of the {size}-byte file"
            ),
        });
    }
    let mut tensors = Vec::new();
    for t in &found.tensors {
        let (root, view_off) = match &t.storage.view_of {
            Some((r, o)) => (r.as_str(), *o),
            None => (t.storage.key.as_str(), 0),
        };
        let idx = offsets.get(root).copied();
        let data = idx.map(|i| {
            let s = &archive.storages[i];
            let size = t.storage.dtype.as_ref().map_or(0, |d| d.1);
            (
                s.data.saturating_add(view_off.saturating_mul(size)),
                s.bytes,
            )
        });
        let mut t = t.clone();
        if t.name.is_empty() {
            t.name = "tensor".into();
        }
        if !is_contiguous(&t.shape, &t.stride) {
            archive.strided.push((tensors.len(), t.stride.clone()));
        }
        tensors.push(tensor_of(&t, data));
        archive.tensor_storage.push(idx);
    }
    archive.skipped = found.skipped;
    let starts = [magic.end, version.end, sys_info.end, object.end];
    for (i, p) in [&version, &sys_info, &object, &keys]
        .into_iter()
        .enumerate()
    {
        archive
            .pickles
            .push(info(format!("pickle {} of 5", i + 2), p, starts[i], None));
    }
    Ok(model(
        "legacy",
        size,
        buf.to_vec(),
        Listed {
            metadata,
            tensors,
            warnings,
            archive,
            header_size: keys.end,
        },
    ))
}
