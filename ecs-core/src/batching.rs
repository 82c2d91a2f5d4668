//! How parallel iteration cuts its work into batches.
//!
//! A parallel query ([`QueryParIter`](crate::query::QueryParIter) and its
//! siblings) hands rayon one task per batch of rows. Small batches balance
//! uneven work across threads; large ones cost less per row. A
//! [`BatchingStrategy`] decides the size:
//!
//! ```
//! use ecs::batching::BatchingStrategy;
//! use ecs::prelude::*;
//!
//! #[derive(Component)]
//! struct Health(u32);
//!
//! let mut world = World::new();
//! world.spawn_batch((0..1000).map(Health));
//! let mut query = world.query::<&mut Health>();
//! query
//!     .par_iter_mut(&mut world)
//!     .batching_strategy(BatchingStrategy::fixed(64))
//!     .for_each(|mut health| health.0 += 1);
//! assert_eq!(query.iter(&world).map(|h| h.0).sum::<u32>(), 1000 * 1001 / 2);
//! ```

use std::ops::Range;

/// The size of the batches a parallel iteration hands to its threads.
///
/// The size is the iteration's rows (or entities) divided by
/// `threads × batches_per_thread`, rounded up, then clamped to
/// `batch_size_limits`; an empty range (as [`BatchingStrategy::fixed`]
/// makes) gives its start. A size of zero is taken as one.
///
/// Parallel queries default to four batches per thread over the query's
/// total rows. [`BatchingStrategy::new`] (also `Default`) asks for one
/// batch per thread, as bevy's default does.
///
/// ```
/// use ecs::batching::BatchingStrategy;
///
/// // 1,000 rows on 4 threads, 2 batches each: 125 rows per batch.
/// let strategy = BatchingStrategy::new().batches_per_thread(2);
/// assert_eq!(strategy.calc_batch_size(|| 1000, 4), 125);
/// // At least 200 rows per batch, whatever the thread count.
/// let strategy = strategy.min_batch_size(200);
/// assert_eq!(strategy.calc_batch_size(|| 1000, 4), 200);
/// assert_eq!(BatchingStrategy::fixed(32).calc_batch_size(|| 1000, 4), 32);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BatchingStrategy {
    /// The smallest and largest batch size (the end is exclusive only in
    /// name: a computed size may equal it). An empty range fixes the size
    /// to its start.
    pub batch_size_limits: Range<usize>,
    /// Batches per thread when the size is computed; at least 1.
    pub batches_per_thread: usize,
}

impl Default for BatchingStrategy {
    fn default() -> Self {
        Self::new()
    }
}

impl BatchingStrategy {
    /// One batch per thread, of any size.
    pub const fn new() -> Self {
        BatchingStrategy {
            batch_size_limits: 1..usize::MAX,
            batches_per_thread: 1,
        }
    }

    /// Batches of exactly `batch_size` rows (the last one shorter).
    pub const fn fixed(batch_size: usize) -> Self {
        BatchingStrategy {
            batch_size_limits: batch_size..batch_size,
            batches_per_thread: 1,
        }
    }

    /// Batches of at least `batch_size` rows.
    pub const fn min_batch_size(mut self, batch_size: usize) -> Self {
        self.batch_size_limits.start = batch_size;
        self
    }

    /// Batches of at most `batch_size` rows.
    pub const fn max_batch_size(mut self, batch_size: usize) -> Self {
        self.batch_size_limits.end = batch_size;
        self
    }

    /// Cuts the work into `batches_per_thread` batches per thread.
    ///
    /// # Panics
    /// If `batches_per_thread` is zero.
    #[track_caller]
    pub fn batches_per_thread(mut self, batches_per_thread: usize) -> Self {
        assert!(
            batches_per_thread > 0,
            "a batching strategy needs at least one batch per thread"
        );
        self.batches_per_thread = batches_per_thread;
        self
    }

    /// The batch size for `max_items` rows on `thread_count` threads
    /// (`max_items` is not called for a fixed size).
    ///
    /// # Panics
    /// If `thread_count` is zero and the size is not fixed.
    #[inline]
    #[track_caller]
    pub fn calc_batch_size(&self, max_items: impl FnOnce() -> usize, thread_count: usize) -> usize {
        if self.batch_size_limits.is_empty() {
            return self.batch_size_limits.start;
        }
        assert!(
            thread_count > 0,
            "a parallel iteration needs at least one thread"
        );
        let batches = thread_count.saturating_mul(self.batches_per_thread);
        max_items()
            .div_ceil(batches)
            .clamp(self.batch_size_limits.start, self.batch_size_limits.end)
    }

    /// The size this crate's parallel queries use: `calc_batch_size`, at
    /// least one row.
    pub(crate) fn size_for(&self, total: usize) -> usize {
        self.calc_batch_size(|| total, rayon::current_num_threads().max(1))
            .max(1)
    }

    /// Four batches per thread over the total rows: the parallel queries'
    /// default, which balances uneven tables better than one per thread.
    pub(crate) const PARALLEL_DEFAULT: BatchingStrategy = BatchingStrategy {
        batch_size_limits: 1..usize::MAX,
        batches_per_thread: 4,
    };
}
