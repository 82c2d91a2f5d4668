//! Drop accounting: a log of dropped ids, and a value that logs its drop
//! and, when armed, panics in it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

/// The ids of the values dropped so far, in drop order.
#[derive(Clone, Default)]
pub struct DropLog(Arc<Mutex<Vec<u32>>>);

impl DropLog {
    fn ids(&self) -> MutexGuard<'_, Vec<u32>> {
        // A poisoned lock (a test failed while holding it) must not turn a
        // drop into a double panic.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Logs one drop of `id`.
    pub fn record(&self, id: u32) {
        self.ids().push(id);
    }

    /// The dropped ids, sorted.
    pub fn dropped(&self) -> Vec<u32> {
        let mut ids = self.ids().clone();
        ids.sort_unstable();
        ids
    }

    /// The number of drops logged.
    pub fn count(&self) -> usize {
        self.ids().len()
    }

    /// How often each id was dropped.
    pub fn counts(&self) -> HashMap<u32, usize> {
        let mut counts = HashMap::new();
        for &id in self.ids().iter() {
            *counts.entry(id).or_insert(0) += 1;
        }
        counts
    }

    /// How often `id` was dropped.
    pub fn times_dropped(&self, id: u32) -> usize {
        self.counts().get(&id).copied().unwrap_or(0)
    }

    /// Asserts that exactly `ids` were dropped, each once.
    #[track_caller]
    pub fn assert_dropped(&self, ids: &[u32]) {
        let mut expected = ids.to_vec();
        expected.sort_unstable();
        assert_eq!(self.dropped(), expected, "dropped ids (sorted)");
    }

    /// Asserts that every id in `ids` was dropped exactly once, and that
    /// no id was dropped twice.
    #[track_caller]
    pub fn assert_dropped_once(&self, ids: &[u32]) {
        let counts = self.counts();
        for &id in ids {
            let n = counts.get(&id).copied().unwrap_or(0);
            assert_eq!(n, 1, "value {id} drop count");
        }
        self.assert_no_double_drop();
    }

    /// Asserts that no id in `ids` was dropped yet.
    #[track_caller]
    pub fn assert_not_dropped(&self, ids: &[u32]) {
        let counts = self.counts();
        for &id in ids {
            assert!(!counts.contains_key(&id), "value {id} dropped too early");
        }
    }

    /// Asserts that no id was dropped more than once.
    #[track_caller]
    pub fn assert_no_double_drop(&self) {
        if let Some((id, n)) = self.counts().into_iter().find(|&(_, n)| n > 1) {
            panic!("value {id} dropped {n} times");
        }
    }
}

/// A drop-logged value; an armed one panics in its `Drop` (after it is
/// logged: the value counts as dropped) with "bomb {id} exploded".
pub struct Payload {
    /// The id its drop logs.
    pub id: u32,
    armed: bool,
    log: DropLog,
}

impl Payload {
    /// A value whose drop only logs.
    pub fn new(id: u32, log: &DropLog) -> Self {
        Payload::with(id, false, log)
    }

    /// A value whose drop logs, then panics.
    pub fn armed(id: u32, log: &DropLog) -> Self {
        Payload::with(id, true, log)
    }

    /// A value armed or not.
    pub fn with(id: u32, armed: bool, log: &DropLog) -> Self {
        Payload {
            id,
            armed,
            log: log.clone(),
        }
    }
}

impl Drop for Payload {
    fn drop(&mut self) {
        self.log.record(self.id);
        // Never panic while already unwinding: that would abort the test
        // binary instead of failing the test.
        if self.armed && !std::thread::panicking() {
            panic!("bomb {} exploded", self.id);
        }
    }
}
