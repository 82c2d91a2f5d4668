use std::ops::Range;

use super::{
    iter::{for_each_archetype_rows, for_each_table_rows},
    ArchetypeFilter, ContiguousQueryData, QueryData, QueryEntityError, QueryFilter, QueryManyIter,
    QueryManyUniqueIter, QueryNotDenseError, QueryState, ReadOnlyQueryData,
};
use crate::{
    batching::BatchingStrategy,
    change_detection::Tick,
    entity::{ContainsEntity, EntityEquivalent, UniqueEntityEquivalentVec},
    world::UnsafeWorldCell,
};

/// A parallel walk over a query's items on rayon's thread pool.
///
/// Each matched table (or archetype) is cut into batches of rows, sized by
/// a [`BatchingStrategy`] from the query's total rows and the number of
/// threads: by default four batches per thread, to balance load.
pub struct QueryParIter<'w, 's, D: QueryData, F: QueryFilter> {
    world: UnsafeWorldCell<'w>,
    state: &'s QueryState<D, F>,
    last_run: Tick,
    this_run: Tick,
    batching: BatchingStrategy,
}

/// `batching(n)` and `batching_strategy(strategy)` of a parallel walk
/// whose batches hold `$what` (rows or entities) and whose strategy is its
/// `batching` field.
macro_rules! batching_methods {
    ($what:literal) => {
        #[doc = concat!("Uses batches of `batch_size` ", $what, " instead of a derived size:")]
        /// `batching_strategy(BatchingStrategy::fixed(batch_size))`.
        ///
        /// # Panics
        /// If `batch_size` is zero.
        #[track_caller]
        pub fn batching(self, batch_size: usize) -> Self {
            assert!(
                batch_size > 0,
                "a parallel query's batch size must be at least 1"
            );
            self.batching_strategy(BatchingStrategy::fixed(batch_size))
        }

        /// Sizes the batches by `strategy` (see [`BatchingStrategy`]).
        pub fn batching_strategy(mut self, strategy: BatchingStrategy) -> Self {
            self.batching = strategy;
            self
        }
    };
}

impl<'w, 's, D: QueryData, F: QueryFilter> QueryParIter<'w, 's, D, F> {
    pub(crate) fn new(
        world: UnsafeWorldCell<'w>,
        state: &'s QueryState<D, F>,
        last_run: Tick,
        this_run: Tick,
    ) -> Self {
        QueryParIter {
            world,
            state,
            last_run,
            this_run,
            batching: BatchingStrategy::PARALLEL_DEFAULT,
        }
    }

    batching_methods!("rows");

    fn storage_lens(&self) -> impl Iterator<Item = usize> + '_ {
        // SAFETY: only the tables' lengths are read.
        let tables = &unsafe { self.world.storages() }.tables;
        let archetypes = self.world.archetypes();
        let dense = self.state.walks_tables();
        let table_lens = self
            .state
            .matched_table_ids
            .iter()
            .filter(move |_| dense)
            .map(move |&id| tables[id].entity_count());
        let archetype_lens = self
            .state
            .matched_archetype_ids
            .iter()
            .filter(move |_| !dense)
            .map(move |&id| archetypes[id].len());
        table_lens.chain(archetype_lens)
    }

    /// Calls `func` with every item, on several threads at once.
    pub fn for_each<FN>(self, func: FN)
    where
        FN: Fn(D::Item<'w>) + Send + Sync,
    {
        self.for_each_init(|| (), |_, item| func(item));
    }

    /// [`QueryParIter::for_each`] with a value `init` makes per batch,
    /// handed to `func` with each item: a scratch buffer, or a handle to a
    /// thread-local queue. `init` may run several times on one thread, and
    /// its values are dropped when their batch ends; it is not a parallel
    /// `fold`.
    ///
    /// ```
    /// use std::sync::Mutex;
    /// use ecs::prelude::*;
    ///
    /// #[derive(Component)]
    /// struct Health(u32);
    ///
    /// let mut world = World::new();
    /// world.spawn_batch((1..=100).map(Health));
    /// let totals = Mutex::new(Vec::new());
    /// struct Sum<'a>(u32, &'a Mutex<Vec<u32>>);
    /// impl Drop for Sum<'_> {
    ///     fn drop(&mut self) {
    ///         self.1.lock().unwrap().push(self.0);
    ///     }
    /// }
    /// let mut query = world.query::<&Health>();
    /// query
    ///     .par_iter(&world)
    ///     .for_each_init(|| Sum(0, &totals), |sum, health| sum.0 += health.0);
    /// assert_eq!(totals.into_inner().unwrap().iter().sum::<u32>(), 5050);
    /// ```
    pub fn for_each_init<FN, INIT, T>(self, init: INIT, func: FN)
    where
        FN: Fn(&mut T, D::Item<'w>) + Send + Sync,
        INIT: Fn() -> T + Send + Sync,
    {
        let threads = rayon::current_num_threads().max(1);
        let total: usize = self.storage_lens().sum();
        let batch_size = self.batching.size_for(total);
        if threads == 1 || total <= batch_size {
            let mut value = init();
            // SAFETY: the constructor's caller had the access; one thread.
            unsafe {
                self.state
                    .iter_unchecked_manual(self.world, self.last_run, self.this_run)
            }
            .for_each(|item| func(&mut value, item));
            return;
        }
        let (world, state, last_run, this_run) =
            (self.world, self.state, self.last_run, self.this_run);
        let (init, func) = (&init, &func);
        rayon::scope(|scope| {
            if state.walks_tables() {
                for (match_index, &table_id) in state.matched_table_ids.iter().enumerate() {
                    // SAFETY: only the table's length is read here.
                    let table = &unsafe { world.storages() }.tables[table_id];
                    for rows in batches(table.entity_count(), batch_size) {
                        // SAFETY: batches cover disjoint rows, so items of
                        // different tasks never alias; the access was
                        // checked by the constructor's caller.
                        scope.spawn(move |_| unsafe {
                            let mut value = init();
                            for_each_table_rows(
                                world,
                                state,
                                match_index,
                                rows,
                                last_run,
                                this_run,
                                &mut |item| func(&mut value, item),
                            )
                        });
                    }
                }
            } else {
                for &archetype_id in &state.matched_archetype_ids {
                    let len = world.archetypes()[archetype_id].len();
                    for rows in batches(len, batch_size) {
                        // SAFETY: as above, with disjoint archetype rows.
                        scope.spawn(move |_| unsafe {
                            let mut value = init();
                            for_each_archetype_rows(
                                world,
                                state,
                                archetype_id,
                                rows,
                                last_run,
                                this_run,
                                &mut |item| func(&mut value, item),
                            )
                        });
                    }
                }
            }
        });
    }
}

/// A parallel walk over the items of a set of entities
/// ([`Query::par_iter_many_unique`](crate::system::Query::par_iter_many_unique)),
/// on rayon's thread pool.
///
/// The set is cut into batches of entities; the set names each entity
/// once, so the items of different batches never alias. Each item is a
/// `Result`: an entity the query cannot return gives its
/// [`QueryEntityError`], as in
/// [`QueryManyUniqueIter`](super::QueryManyUniqueIter).
///
/// The list is cut into batches of entities sized by a
/// [`BatchingStrategy`].
pub struct QueryParManyUniqueIter<'w, 's, D: QueryData, F: QueryFilter, E: EntityEquivalent + Sync>
{
    world: UnsafeWorldCell<'w>,
    state: &'s QueryState<D, F>,
    entities: UniqueEntityEquivalentVec<E>,
    last_run: Tick,
    this_run: Tick,
    batching: BatchingStrategy,
}

impl<'w, 's, D: QueryData, F: QueryFilter, E: EntityEquivalent + Sync>
    QueryParManyUniqueIter<'w, 's, D, F, E>
{
    /// # Safety
    /// `world` is the world `state` was built for, and the caller holds
    /// the access `state` records for `'w`.
    pub(crate) unsafe fn new(
        world: UnsafeWorldCell<'w>,
        state: &'s QueryState<D, F>,
        entities: UniqueEntityEquivalentVec<E>,
        last_run: Tick,
        this_run: Tick,
    ) -> Self {
        QueryParManyUniqueIter {
            world,
            state,
            entities,
            last_run,
            this_run,
            batching: BatchingStrategy::PARALLEL_DEFAULT,
        }
    }

    batching_methods!("entities");

    /// Calls `func` with the item (or error) of every entity of the set,
    /// on several threads at once.
    pub fn for_each<FN>(self, func: FN)
    where
        FN: Fn(Result<D::Item<'w>, QueryEntityError>) + Send + Sync,
    {
        self.for_each_init(|| (), |_, item| func(item));
    }

    /// [`QueryParManyUniqueIter::for_each`] with a value `init` makes per
    /// batch, handed to `func` with each item (a scratch buffer, a
    /// thread-local queue). `init` may run several times on one thread.
    pub fn for_each_init<FN, INIT, T>(self, init: INIT, func: FN)
    where
        FN: Fn(&mut T, Result<D::Item<'w>, QueryEntityError>) + Send + Sync,
        INIT: Fn() -> T + Send + Sync,
    {
        let (world, state, last_run, this_run) =
            (self.world, self.state, self.last_run, self.this_run);
        let entities = self.entities.as_slice();
        let run = |rows: Range<usize>| {
            let batch = entities
                .get_range(rows)
                .expect("batches lie within the set");
            let mut value = init();
            let items =
                // SAFETY: the constructor's caller holds the state's access;
                // batches are disjoint parts of one set, so items of
                // different batches (and of one batch) never alias.
                unsafe { QueryManyUniqueIter::new(world, state, batch, last_run, this_run) };
            for item in items {
                func(&mut value, item);
            }
        };
        run_list_batches(entities.len(), &self.batching, run);
    }
}

/// Runs `run` on every batch of a list of `total` entities sized by
/// `batching`, on rayon's pool (on this thread when there is one batch or
/// one thread; each batch still gets its own call, as documented for the
/// `init` values).
fn run_list_batches(total: usize, batching: &BatchingStrategy, run: impl Fn(Range<usize>) + Sync) {
    let threads = rayon::current_num_threads().max(1);
    let batch_size = batching.size_for(total);
    if threads == 1 || total <= batch_size {
        batches(total, batch_size).for_each(run);
        return;
    }
    let run = &run;
    rayon::scope(|scope| {
        for rows in batches(total, batch_size) {
            scope.spawn(move |_| run(rows));
        }
    });
}

/// A parallel walk over the read-only items of a list of entities
/// ([`Query::par_iter_many`](crate::system::Query::par_iter_many)), on
/// rayon's thread pool.
///
/// The list may name an entity more than once (the items are read-only),
/// and each item is a `Result`, as in
/// [`QueryManyIter`](super::QueryManyIter): an entity the query cannot
/// return gives its [`QueryEntityError`]. The list is cut into batches of
/// entities sized by a [`BatchingStrategy`].
pub struct QueryParManyIter<
    'w,
    's,
    D: ReadOnlyQueryData,
    F: QueryFilter,
    E: EntityEquivalent + Sync,
> {
    world: UnsafeWorldCell<'w>,
    state: &'s QueryState<D, F>,
    entities: Vec<E>,
    last_run: Tick,
    this_run: Tick,
    batching: BatchingStrategy,
}

impl<'w, 's, D: ReadOnlyQueryData, F: QueryFilter, E: EntityEquivalent + Sync>
    QueryParManyIter<'w, 's, D, F, E>
{
    /// # Safety
    /// `world` is the world `state` was built for, and the caller holds
    /// the access `state` records (reads only) for `'w`.
    pub(crate) unsafe fn new(
        world: UnsafeWorldCell<'w>,
        state: &'s QueryState<D, F>,
        entities: Vec<E>,
        last_run: Tick,
        this_run: Tick,
    ) -> Self {
        QueryParManyIter {
            world,
            state,
            entities,
            last_run,
            this_run,
            batching: BatchingStrategy::PARALLEL_DEFAULT,
        }
    }

    batching_methods!("entities");

    /// Calls `func` with the item (or error) of every entity of the list,
    /// on several threads at once.
    pub fn for_each<FN>(self, func: FN)
    where
        FN: Fn(Result<D::Item<'w>, QueryEntityError>) + Send + Sync,
    {
        self.for_each_init(|| (), |_, item| func(item));
    }

    /// [`QueryParManyIter::for_each`] with a value `init` makes per batch,
    /// handed to `func` with each item. `init` may run several times on
    /// one thread.
    pub fn for_each_init<FN, INIT, T>(self, init: INIT, func: FN)
    where
        FN: Fn(&mut T, Result<D::Item<'w>, QueryEntityError>) + Send + Sync,
        INIT: Fn() -> T + Send + Sync,
    {
        let (world, state, last_run, this_run) =
            (self.world, self.state, self.last_run, self.this_run);
        let entities = self.entities.as_slice();
        let run = |rows: Range<usize>| {
            let mut value = init();
            let batch = entities[rows].iter().map(ContainsEntity::entity);
            // SAFETY: the constructor's caller holds the state's access,
            // which only reads, so items may alias (a repeated entity).
            let items = unsafe { QueryManyIter::new(world, state, batch, last_run, this_run) };
            for item in items {
                func(&mut value, item);
            }
        };
        run_list_batches(entities.len(), &self.batching, run);
    }
}

/// A parallel walk over a dense query's matches as slices
/// ([`Query::contiguous_par_iter`](crate::system::Query::contiguous_par_iter)):
/// each matched table is cut into batches of rows, and each batch is
/// handed to the callback as the slices of its rows, on rayon's pool.
///
/// Each table is cut into batches of rows sized by a [`BatchingStrategy`];
/// a batch never spans two tables.
pub struct QueryContiguousParIter<'w, 's, D: ContiguousQueryData, F: ArchetypeFilter> {
    world: UnsafeWorldCell<'w>,
    state: &'s QueryState<D, F>,
    last_run: Tick,
    this_run: Tick,
    batching: BatchingStrategy,
}

impl<'w, 's, D: ContiguousQueryData, F: ArchetypeFilter> QueryContiguousParIter<'w, 's, D, F> {
    /// # Safety
    /// `world` is the world `state` was built for, and the caller holds
    /// the access `state` records for `'w`.
    pub(crate) unsafe fn new(
        world: UnsafeWorldCell<'w>,
        state: &'s QueryState<D, F>,
        last_run: Tick,
        this_run: Tick,
    ) -> Result<Self, QueryNotDenseError> {
        if !state.walks_tables() {
            return Err(QueryNotDenseError(std::any::type_name::<QueryState<D, F>>()));
        }
        Ok(QueryContiguousParIter {
            world,
            state,
            last_run,
            this_run,
            batching: BatchingStrategy::PARALLEL_DEFAULT,
        })
    }

    batching_methods!("rows");

    /// Calls `func` with the slices of every batch of rows, on several
    /// threads at once.
    pub fn for_each<FN>(self, func: FN)
    where
        FN: Fn(D::Contiguous<'w>) + Send + Sync,
    {
        self.for_each_init(|| (), |_, slices| func(slices));
    }

    /// [`QueryContiguousParIter::for_each`] with a value `init` makes per
    /// batch, handed to `func` with each batch's slices. `init` may run
    /// several times on one thread.
    pub fn for_each_init<FN, INIT, T>(self, init: INIT, func: FN)
    where
        FN: Fn(&mut T, D::Contiguous<'w>) + Send + Sync,
        INIT: Fn() -> T + Send + Sync,
    {
        let (world, state, last_run, this_run) =
            (self.world, self.state, self.last_run, self.this_run);
        // SAFETY: the tables are read with the constructor's caller's access.
        let tables = &unsafe { world.storages() }.tables;
        let threads = rayon::current_num_threads().max(1);
        let total: usize = state
            .matched_tables()
            .iter()
            .map(|&id| tables[id].entity_count())
            .sum();
        let batch_size = self.batching.size_for(total);
        // SAFETY: (for both uses below) the query walks tables and matches
        // `table`, the rows lie within it, and the batches are disjoint,
        // so no two live slices alias; the access was checked by the
        // constructor's caller.
        let fetch = |table_id: crate::storage::TableId, rows: Range<usize>| unsafe {
            D::fetch_contiguous(
                &state.fetch_state,
                &tables[table_id],
                rows,
                last_run,
                this_run,
            )
        };
        if threads == 1 || total <= batch_size {
            // A batching the caller chose still bounds every slice, and
            // each batch gets its own value, as on several threads.
            let chosen = self.batching != BatchingStrategy::PARALLEL_DEFAULT;
            for &table_id in state.matched_tables() {
                let len = tables[table_id].entity_count();
                for rows in batches(len, if chosen { batch_size } else { len.max(1) }) {
                    func(&mut init(), fetch(table_id, rows));
                }
            }
            return;
        }
        let (fetch, init, func) = (&fetch, &init, &func);
        rayon::scope(|scope| {
            for &table_id in state.matched_tables() {
                for rows in batches(tables[table_id].entity_count(), batch_size) {
                    scope.spawn(move |_| {
                        let mut value = init();
                        func(&mut value, fetch(table_id, rows));
                    });
                }
            }
        });
    }
}

/// The rows `0..len` cut into consecutive batches of `batch_size` rows (the
/// last one shorter).
fn batches(len: usize, batch_size: usize) -> impl Iterator<Item = Range<usize>> {
    (0..len)
        .step_by(batch_size)
        .map(move |start| start..(start + batch_size).min(len))
}
