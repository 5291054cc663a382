//! `.npz` archives: a zip of `.npy` members (stored or deflated), each member's header read
//! from its first bytes, object arrays' pickles judged.

use super::*;

/// The bytes of member `e` (whose data starts at `start`) read for an object array's pickle:
/// all of them, at most [`MAX_PICKLE_BYTES`], never past the central directory.
pub(super) fn pickle_want(e: &Entry, start: u64, cd_offset: u64) -> u64 {
    e.compressed
        .min(MAX_PICKLE_BYTES)
        .min(cd_offset.saturating_sub(start))
}

/// Largest gap between two object arrays' pickles read as one range (64 KiB: a round trip
/// costs more than that many bytes).
pub(super) const MERGE_GAP: u64 = 64 << 10;

/// `needs` sorted, with ranges that overlap or lie within [`MERGE_GAP`] of each other merged
/// into one (at most [`MAX_PICKLE_BYTES`] each).
pub(super) fn merge_near(mut needs: Vec<Need>) -> Vec<Need> {
    needs.sort_by_key(|n| n.offset);
    let mut out: Vec<Need> = Vec::with_capacity(needs.len());
    for n in needs {
        let end = n.offset.saturating_add(n.len);
        if let Some(last) = out.last_mut() {
            let last_end = last.offset.saturating_add(last.len);
            let merged = end.max(last_end) - last.offset;
            if n.offset <= last_end.saturating_add(MERGE_GAP) && merged <= MAX_PICKLE_BYTES {
                last.len = merged;
                continue;
            }
        }
        out.push(n);
    }
    out
}

/// Most `.npy` headers of an `.npz` read in one round of reads.
pub(super) const NPZ_BATCH: usize = 4096;

/// An `.npz` archive: each `.npy` member's header, from its local header and first bytes (a
/// deflated member's first compressed bytes, inflated), and each object array's pickle (the
/// member's bytes after its header, a deflated one inflated whole). `entries` are the
/// archive's members, `cd_offset` where its central directory starts. Missing bytes are one
/// [`Stop::NeedRanges`] per round, for every member at once: the headers first, then the
/// object arrays' pickles. The model's `header_size` counts the members' local and `.npy`
/// headers, the pickles and the central directory.
pub fn npz_step(
    held: &Held,
    size: u64,
    prefix: &[u8],
    entries: &[Entry],
    cd_offset: u64,
) -> Result<Model, Stop> {
    let mut m = base(size, prefix.to_vec(), "npz");
    let mut needs = Vec::new();
    let mut pickle_needs = Vec::new();
    let mut listed = Vec::new();
    let mut header = 0u64;
    // np.load reads every member that starts with the .npy magic as an array, whatever its
    // name (`z["x"]` is member "x.npy", or "x"): all are looked at.
    let mut errors: Vec<Error> = Vec::new();
    for e in entries.iter().filter(|e| !e.name.ends_with('/')) {
        let named = e.name.ends_with(".npy");
        let name = e.name.strip_suffix(".npy").unwrap_or(&e.name).to_string();
        let guess = zip::LOCAL_LEN + e.name.len() as u64 + 256 + 4096;
        let local = held.from(e.local_header).unwrap_or(&[]);
        let start = match zip::data_offset(local, e, cd_offset) {
            Ok(s) => s,
            Err(Stop::NeedRange(_)) => {
                needs.push(Need {
                    offset: e.local_header,
                    len: guess.min(cd_offset.saturating_sub(e.local_header)),
                });
                continue;
            }
            Err(f) => return Err(f),
        };
        let have = held.from(start).unwrap_or(&[]);
        let have = &have[..have.len().min(to_usize(e.compressed).unwrap_or(usize::MAX))];
        let (head, stored) = if e.is_stored() {
            (have.to_vec(), true)
        } else if e.method == zip::METHOD_DEFLATE && e.flags & 1 == 0 {
            (inflate_head(have), false)
        } else {
            // numpy's zipfile reads bzip2 and lzma members too: one may hold an object array.
            errors.push(Error::new(
                format!("npz member \"{}\"", e.name),
                e.local_header,
                ErrorKind::Invalid(format!(
                    "compression method {} (or encryption), which this tool does not read: \
                     whether it holds an object array's pickle, which {} would run, is not \
                     known",
                    e.method,
                    object::LOADER
                )),
            ));
            continue;
        };
        // A member of another name is an array only if it starts with the magic; else numpy
        // gives its bytes, and so it is not listed.
        let known = head.len() >= NPY_MAGIC.len() || (have.len() as u64) >= e.compressed;
        if !named && known && !head.starts_with(NPY_MAGIC) {
            continue;
        }
        match parse_header(&head, start) {
            Ok(h) => {
                // An object array's pickle: the member's bytes (compressed or not) after the
                // header, read with the other members' in one round.
                let want = pickle_want(e, start, cd_offset);
                if h.object && held.get(start, want).is_none() {
                    pickle_needs.push(Need {
                        offset: start,
                        len: want,
                    });
                }
                // The member's local header and its .npy header (in the stored bytes).
                header = header.saturating_add(start - e.local_header);
                if stored {
                    header = header.saturating_add(h.data_start);
                }
                listed.push((name, h, e, start, stored))
            }
            Err(Stop::Fail(err)) => {
                m.warnings.push(Warning {
                    field: format!("npz member \"{}\"", e.name),
                    offset: err.offset,
                    message: err.to_string(),
                });
            }
            Err(need) => {
                // (parse_header needs a prefix of the .npy bytes: NeedMore.)
                let n = need.needed_end().unwrap_or(u64::MAX);
                let more = if stored {
                    n
                } else {
                    n.saturating_mul(2).max(1 << 16)
                }
                .min(e.compressed);
                if (have.len() as u64) >= more || (have.len() as u64) >= e.compressed {
                    m.warnings.push(Warning {
                        field: format!("npz member \"{}\"", e.name),
                        offset: start,
                        message: "its .npy header runs past the member".into(),
                    });
                    continue;
                }
                needs.push(Need {
                    offset: e.local_header,
                    len: (start - e.local_header).saturating_add(more.max(4096).min(e.compressed)),
                });
            }
        }
    }
    // The object arrays' pickles in as few reads as their layout allows.
    needs.extend(merge_near(pickle_needs));
    if !needs.is_empty() {
        needs.truncate(NPZ_BATCH);
        return Err(Stop::NeedRanges(needs));
    }
    let mut deflated = 0usize;
    for (name, h, e, start, stored) in listed {
        if h.fortran_order {
            m.warnings.push(fortran_warning(&name, &h, start));
        }
        let index = m.tensors.len();
        let mut t = tensor(name.clone(), &h, start.saturating_add(h.data_start));
        fields_meta(&mut m.metadata, &format!("{name}."), &h);
        let mut refusal = not_previewed(&h).map(|why| (index, why));
        if h.object {
            let want = pickle_want(e, start, cd_offset);
            let whole = want == e.compressed;
            let member = format!("npz member \"{}\"", e.name);
            let bytes = held.get(start, want).unwrap_or(&[]);
            let judged = if stored {
                let from = to_usize(h.data_start)
                    .unwrap_or(usize::MAX)
                    .min(bytes.len());
                Ok(object::judge(
                    member.clone(),
                    &bytes[from..],
                    start.saturating_add(h.data_start),
                    whole,
                ))
            } else {
                // Offsets are within the inflated member (as numpy's reader sees it).
                object::inflate_member(bytes, whole).map(|(inflated, all)| {
                    let from = to_usize(h.data_start)
                        .unwrap_or(usize::MAX)
                        .min(inflated.len());
                    object::judge(member.clone(), &inflated[from..], h.data_start, all)
                })
            };
            match judged {
                Ok((info, err)) => {
                    header = header.saturating_add(info.len);
                    object_meta(&mut m.metadata, &info);
                    if let Some(a) = m.archive_mut() {
                        a.pickles.push(info);
                    }
                    errors.extend(err);
                }
                Err(mut err) => {
                    err.field = member;
                    err.offset = start;
                    errors.push(err);
                }
            }
        } else {
            if !stored {
                // Its values are inside the compressed bytes: a preview inflates them up to
                // its window (`t.offset` is the compressed bytes' start).
                deflated += 1;
                t.offset = start;
                if let Some(a) = m.archive_mut() {
                    a.deflated.push(crate::format::archive::DeflatedMember {
                        tensor: index,
                        start,
                        compressed: e.compressed,
                        size: e.size,
                        data_start: h.data_start,
                    });
                }
            }
            // The array against its member: the bytes stored, or what they inflate to.
            let (holds, verb) = if stored {
                (e.compressed, "holds")
            } else {
                (e.size, "inflates to")
            };
            if let Some(end) = t.bytes.and_then(|b| h.data_start.checked_add(b)) {
                if end > holds {
                    t.note = Some(format!(
                        "the array needs {end} bytes of its member, which {verb} {holds}"
                    ));
                }
            }
        }
        if let Some(a) = m.archive_mut() {
            a.not_in_place.extend(refusal.take());
            a.structured.extend(structured_of(index, &h));
        }
        m.tensors.push(t);
    }
    meta(
        &mut m.metadata,
        "numpy.format".into(),
        "npz (a zip of .npy arrays)".into(),
    );
    meta(
        &mut m.metadata,
        "zip.members".into(),
        entries.len().to_string(),
    );
    if deflated > 0 {
        meta(&mut m.metadata, "npz.deflated".into(), deflated.to_string());
    }
    m.metadata_count = m.metadata.len() as u64;
    m.tensor_count = m.tensors.len() as u64;
    // Headers: every member's local and .npy header (and pickle), and the central directory
    // with the end records (from the directory's start to the end of the file).
    m.header_size = header
        .saturating_add(size.saturating_sub(cd_offset))
        .min(size);
    // The first pickle that could not be read whole is the model's error, the others warnings.
    let mut errors = errors.into_iter();
    m.error = errors.next();
    for e in errors {
        m.warnings.push(Warning {
            field: e.field.clone(),
            offset: e.offset,
            message: e.to_string(),
        });
    }
    Ok(m)
}
