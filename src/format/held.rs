//! The byte ranges of a file read so far, for the formats read by ranges rather than as a
//! prefix (a zip archive from its end, an ONNX protobuf that skips its payloads).

use std::collections::BTreeMap;

/// Bytes the caller must read before a parse can go on: `len` bytes at absolute `offset`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Need {
    /// First byte.
    pub offset: u64,
    /// Bytes.
    pub len: u64,
}

/// Byte ranges of a file read so far: what a zip archive is parsed from (its start, its end,
/// its central directory, its pickles).
///
/// The reads are kept by their first byte, and a read that another one holds whole is
/// dropped, so that no kept read holds another: the kept reads' ends then grow with their
/// starts, and the read that reaches furthest from any offset is the last one starting at or
/// before it. [`Held::add`], [`Held::get`] and [`Held::from`] are O(log n) in the number of
/// reads (an `.npz` of 40,000 members is read in as many ranges).
#[derive(Debug, Clone, Default)]
pub struct Held {
    segs: BTreeMap<u64, Vec<u8>>,
    total: u64,
}

impl Held {
    /// Adds bytes read at `offset` (bytes of the same file: where two reads overlap, they hold
    /// the same bytes).
    pub fn add(&mut self, offset: u64, bytes: Vec<u8>) {
        let end = offset.saturating_add(bytes.len() as u64);
        if self.reach(offset).is_some_and(|r| r >= end) {
            return; // held already
        }
        // Drop the reads the new one holds whole: they start at or after `offset`, and (the
        // ends growing with the starts) form a run that stops at the first reaching past `end`.
        let covered: Vec<u64> = self
            .segs
            .range(offset..)
            .take_while(|(at, b)| at.saturating_add(b.len() as u64) <= end)
            .map(|(at, _)| *at)
            .collect();
        for at in covered {
            if let Some(b) = self.segs.remove(&at) {
                self.total -= b.len() as u64;
            }
        }
        self.total += bytes.len() as u64;
        self.segs.insert(offset, bytes);
    }

    /// One past the last byte of the read reaching furthest from `offset` (`None` when none
    /// starts at or before it).
    fn reach(&self, offset: u64) -> Option<u64> {
        self.segs
            .range(..=offset)
            .next_back()
            .map(|(at, b)| at.saturating_add(b.len() as u64))
    }

    /// The read holding `offset` that reaches furthest, and `offset`'s place in it.
    fn holding(&self, offset: u64) -> Option<(&[u8], usize)> {
        let (at, b) = self.segs.range(..=offset).next_back()?;
        let rel = usize::try_from(offset - at).ok()?;
        (rel <= b.len()).then_some((b.as_slice(), rel))
    }

    /// The `len` bytes at `offset`, when one read holds all of them.
    pub fn get(&self, offset: u64, len: u64) -> Option<&[u8]> {
        let (b, rel) = self.holding(offset)?;
        let end = rel.checked_add(usize::try_from(len).ok()?)?;
        b.get(rel..end)
    }

    /// The bytes from `offset` to the end of the read holding it that reaches furthest (a
    /// read that ends at `offset` gives way to one that starts there).
    pub fn from(&self, offset: u64) -> Option<&[u8]> {
        let (b, rel) = self.holding(offset)?;
        b.get(rel..)
    }

    /// Bytes held in total (reads held whole by another are not counted).
    pub fn bytes(&self) -> u64 {
        self.total
    }
}

#[cfg(test)]
mod tests {
    use super::Held;

    #[test]
    fn overlapping_reads_give_the_furthest_run() {
        let file: Vec<u8> = (0..=255u8).cycle().take(10_000).collect();
        let read =
            |h: &mut Held, at: usize, len: usize| h.add(at as u64, file[at..at + len].to_vec());
        let mut h = Held::default();
        read(&mut h, 100, 50);
        read(&mut h, 120, 100); // overlaps: both kept
        read(&mut h, 130, 10); // held whole by the one before: dropped
        assert_eq!(h.bytes(), 150);
        assert_eq!(h.get(110, 30), Some(&file[110..140]));
        assert_eq!(h.get(110, 200), None);
        assert_eq!(h.from(125), Some(&file[125..220]));
        assert_eq!(h.from(150), Some(&file[150..220]));
        assert_eq!(h.get(99, 1), None);
        read(&mut h, 90, 500); // holds both: they go
        assert_eq!(h.bytes(), 500);
        assert_eq!(h.from(95), Some(&file[95..590]));
        read(&mut h, 590, 10); // adjacent
        assert_eq!(h.from(590), Some(&file[590..600]));
        assert_eq!(h.get(580, 20), None);
        assert_eq!(h.from(u64::MAX), None);
    }

    #[test]
    fn forty_thousand_reads_are_fast() {
        let mut h = Held::default();
        let t = std::time::Instant::now();
        for i in (0..40_000u64).rev() {
            h.add(i * 100, vec![1; 256]);
        }
        for i in 0..40_000u64 {
            assert!(h.get(i * 100 + 5, 50).is_some());
            assert!(h.from(i * 100).is_some());
        }
        assert!(t.elapsed().as_secs_f64() < 2.0, "{:?}", t.elapsed());
    }
}
