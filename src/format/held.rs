//! The byte ranges of a file read so far, for the formats read by ranges rather than as a
//! prefix (a zip archive from its end, an ONNX protobuf that skips its payloads).

/// Byte ranges of a file read so far: what a zip archive is parsed from (its start, its end,
/// its central directory, its pickles).
#[derive(Debug, Clone, Default)]
pub struct Held {
    segs: Vec<(u64, Vec<u8>)>,
}

impl Held {
    /// Adds bytes read at `offset`.
    pub fn add(&mut self, offset: u64, bytes: Vec<u8>) {
        self.segs.push((offset, bytes));
        self.segs.sort_by_key(|s| s.0);
    }

    /// The `len` bytes at `offset`, when one read holds all of them.
    pub fn get(&self, offset: u64, len: u64) -> Option<&[u8]> {
        self.segs.iter().find_map(|(at, b)| {
            let rel = offset.checked_sub(*at)?;
            let end = rel.checked_add(len)?;
            if end > b.len() as u64 {
                return None;
            }
            b.get(usize::try_from(rel).ok()?..usize::try_from(end).ok()?)
        })
    }

    /// The bytes from `offset` to the end of the read holding it.
    pub fn from(&self, offset: u64) -> Option<&[u8]> {
        // The longest run: a read that ends at `offset` gives way to one that starts there.
        self.segs
            .iter()
            .filter_map(|(at, b)| {
                let rel = usize::try_from(offset.checked_sub(*at)?).ok()?;
                b.get(rel..)
            })
            .max_by_key(|b| b.len())
    }

    /// Bytes held in total.
    pub fn bytes(&self) -> u64 {
        self.segs.iter().map(|s| s.1.len() as u64).sum()
    }
}
