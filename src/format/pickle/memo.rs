//! The pickle machine's memo: node ids by key. Python's pickler numbers its memo entries
//! 0, 1, 2, … (MEMOIZE takes the next; BINPUT and LONG_BINPUT write the same numbers), so the
//! keys below [`DENSE_KEYS`] live in a vector indexed by key, as CPython's C unpickler keeps
//! them; any other key (a hostile `LONG_BINPUT 4000000000`, a protocol-0 `PUT` text) goes to
//! a hash map. A million MEMOIZEs then take ~4 MB and no hashing.

use std::collections::HashMap;

use super::NodeId;

/// Keys held in the vector: below 2²¹ (8 MiB of ids at most, grown as keys arrive).
pub const DENSE_KEYS: u64 = 1 << 21;

/// Marks a key of the vector never stored.
const EMPTY: NodeId = NodeId::MAX;

/// Node ids by memo key.
#[derive(Debug, Default)]
pub(super) struct Memo {
    dense: Vec<NodeId>,
    sparse: HashMap<u64, NodeId>,
    len: usize,
}

impl Memo {
    /// Distinct keys stored.
    pub fn len(&self) -> usize {
        self.len
    }

    /// The id stored under `key`.
    pub fn get(&self, key: u64) -> Option<NodeId> {
        if key < DENSE_KEYS {
            // key < 2^21 fits usize.
            self.dense
                .get(key as usize)
                .copied()
                .filter(|&v| v != EMPTY)
        } else {
            self.sparse.get(&key).copied()
        }
    }

    /// Whether `key` is stored.
    pub fn contains(&self, key: u64) -> bool {
        self.get(key).is_some()
    }

    /// Stores `id` under `key` (replacing what was there).
    pub fn insert(&mut self, key: u64, id: NodeId) {
        if key < DENSE_KEYS {
            let k = key as usize;
            if k >= self.dense.len() {
                self.dense.resize(k + 1, EMPTY);
            }
            if self.dense[k] == EMPTY {
                self.len += 1;
            }
            self.dense[k] = id;
        } else if self.sparse.insert(key, id).is_none() {
            self.len += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dense_and_sparse_keys() {
        let mut m = Memo::default();
        m.insert(0, 7);
        m.insert(5, 8);
        m.insert(5, 9);
        m.insert(u64::from(u32::MAX), 10);
        m.insert(DENSE_KEYS, 11);
        assert_eq!(m.len(), 4);
        assert_eq!(m.get(0), Some(7));
        assert_eq!(m.get(1), None);
        assert_eq!(m.get(5), Some(9));
        assert_eq!(m.get(u64::from(u32::MAX)), Some(10));
        assert_eq!(m.get(DENSE_KEYS), Some(11));
        assert!(!m.contains(99));
    }
}
