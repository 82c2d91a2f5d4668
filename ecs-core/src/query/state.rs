use std::{any::type_name, borrow::Borrow, marker::PhantomData};

use fixedbitset::FixedBitSet;

use super::{
    iter::QueryIter, par_iter::QueryParIter, FilteredAccess, QueryCombinationIter, QueryData,
    QueryEntityError, QueryFilter, QueryManyIter, QueryManyUniqueIter, QuerySingleError,
    ReadOnlyQueryData, WorldQuery,
};
use crate::{
    archetype::{Archetype, ArchetypeGeneration, ArchetypeId},
    change_detection::Tick,
    component::{ComponentId, StorageType},
    entity::{Entity, EntitySet, UniqueEntityArray},
    entity_disabling::DefaultQueryFilters,
    storage::{Table, TableId, Tables},
    system::Query,
    world::{UnsafeWorldCell, World, WorldId},
};

/// The cached state of a query: its component ids, its access, and the
/// tables and archetypes it matches.
///
/// The match cache is brought up to date from the last
/// [`ArchetypeGeneration`] at each use, checking only archetypes created
/// since, and only those that contain the query's rarest required
/// component (found through the component index).
///
/// ```
/// use ecs::prelude::*;
///
/// #[derive(Component)]
/// struct Position(f32);
/// #[derive(Component)]
/// struct Velocity(f32);
///
/// let mut world = World::new();
/// world.spawn((Position(0.0), Velocity(2.0)));
/// world.spawn(Position(5.0));
/// let mut query = world.query::<(&mut Position, &Velocity)>();
/// for (mut p, v) in query.iter_mut(&mut world) {
///     p.0 += v.0;
/// }
/// let mut positions = world.query::<&Position>();
/// let mut xs: Vec<f32> = positions.iter(&world).map(|p| p.0).collect();
/// xs.sort_by(f32::total_cmp);
/// assert_eq!(xs, [2.0, 5.0]);
/// ```
// `repr(C)`: `as_readonly` reinterprets a state as the state of the
// read-only twin, whose fields have the same types.
#[repr(C)]
pub struct QueryState<D: QueryData, F: QueryFilter = ()> {
    world_id: WorldId,
    archetype_generation: ArchetypeGeneration,
    /// For each table of the world, by index: its position in
    /// `matched_table_ids` (and so in the column cache), or [`NOT_MATCHED`]
    /// (also for tables past the end). `get` of a dense query finds an
    /// entity's slots through it, knowing only its table.
    table_matches: Vec<u32>,
    matched_archetypes: FixedBitSet,
    pub(crate) matched_table_ids: Vec<TableId>,
    /// The column cache of a dense query: for each matched table, in the
    /// order of `matched_table_ids`, `TABLE_COLUMNS` slots (`D`'s, then
    /// `F`'s; see [`WorldQuery::table_columns`]). Empty for a query that
    /// walks archetypes.
    pub(crate) matched_table_columns: Vec<u32>,
    pub(crate) matched_archetype_ids: Vec<ArchetypeId>,
    component_access: FilteredAccess,
    /// The disabling components this query does not mention: archetypes
    /// with any of them are not matched (see [`DefaultQueryFilters`]).
    default_excluded: Vec<ComponentId>,
    pub(crate) fetch_state: D::State,
    pub(crate) filter_state: F::State,
    /// Set on a lens of a query that walks archetypes, or on a query with
    /// an exclusive set: it walks the matched archetypes even when its
    /// terms are dense, since its matches may cover only part of a table.
    pub(crate) archetype_walk: bool,
    /// The exact component set of a [`QueryBuilder::exclusive_ids`]
    /// query, sorted: an archetype matches only with exactly these.
    ///
    /// [`QueryBuilder::exclusive_ids`]: super::QueryBuilder::exclusive_ids
    exact: Option<Box<[ComponentId]>>,
    marker: PhantomData<fn() -> (D, F)>,
}

/// `QueryState::table_matches` of a table the query does not match.
const NOT_MATCHED: u32 = u32::MAX;

impl<D: QueryData, F: QueryFilter> std::fmt::Debug for QueryState<D, F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QueryState")
            .field("query", &type_name::<(D, F)>())
            .field("world_id", &self.world_id)
            .field("matched_tables", &self.matched_table_ids.len())
            .field("matched_archetypes", &self.matched_archetype_ids.len())
            .finish()
    }
}

/// What a builder's terms add beyond `D`'s own typed terms (`own`): the
/// access its filtered handles may take without aliasing a typed term of
/// the same item.
pub(super) fn builder_only_access(own: &super::Access, full: &super::Access) -> super::Access {
    let mut available = super::Access::default();
    for id in full.reads().filter(|&id| !own.has_read(id)) {
        if full.has_write(id) {
            available.add_write(id);
        } else {
            available.add_read(id);
        }
    }
    if !own.has_any_read() {
        if full.has_write_all() {
            available.write_all();
        } else if full.has_read_all() {
            available.read_all();
        }
    }
    available
}

impl<D: QueryData, F: QueryFilter> QueryState<D, F> {
    /// Whether iteration walks tables (no sparse-set component involved).
    pub const IS_DENSE: bool = D::IS_DENSE && F::IS_DENSE;

    /// The slots of the column cache per matched table (dense queries).
    pub(crate) const TABLE_COLUMNS: usize = D::TABLE_COLUMNS + F::TABLE_COLUMNS;

    /// Builds the state for `world`, registering the components involved.
    ///
    /// # Panics
    /// If the query's own terms conflict (`(&mut A, &A)`), naming the
    /// component.
    #[track_caller]
    pub fn new(world: &mut World) -> Self {
        let fetch_state = D::init_state(world);
        let filter_state = F::init_state(world);
        Self::from_states(world, fetch_state, filter_state)
    }

    /// Builds the state for `world` from the components already
    /// registered, without `&mut World`: `None` if one the query names is
    /// not registered yet (or a term cannot be looked up, as a
    /// [`QueryBuilder`](super::QueryBuilder)'s dynamic ones).
    ///
    /// # Panics
    /// As for [`QueryState::new`].
    #[track_caller]
    pub fn try_new(world: &World) -> Option<Self> {
        let fetch_state = D::get_state(world.components())?;
        let filter_state = F::get_state(world.components())?;
        Some(Self::from_states(world, fetch_state, filter_state))
    }

    #[track_caller]
    fn from_states(world: &World, fetch_state: D::State, filter_state: F::State) -> Self {
        let mut component_access = FilteredAccess::default();
        D::update_component_access(&fetch_state, &mut component_access);
        // Filters are recorded separately so that `Changed<A>` beside
        // `&mut A` is not taken for a conflict.
        let mut filter_access = FilteredAccess::default();
        F::update_component_access(&filter_state, &mut filter_access);
        component_access.extend(&filter_access);
        component_access.set_entity_scope();
        let default_excluded = default_excluded::<D, F>(world, &mut component_access);
        let mut state = QueryState {
            world_id: world.id(),
            archetype_generation: ArchetypeGeneration::initial(),
            table_matches: Vec::new(),
            matched_archetypes: FixedBitSet::new(),
            matched_table_ids: Vec::new(),
            matched_table_columns: Vec::new(),
            matched_archetype_ids: Vec::new(),
            component_access,
            default_excluded,
            fetch_state,
            filter_state,
            archetype_walk: false,
            exact: None,
            marker: PhantomData,
        };
        state.update_archetypes(world);
        state
    }

    /// The state of the terms a [`QueryBuilder`](super::QueryBuilder)
    /// collected (see [`QueryBuilder::build`](super::QueryBuilder::build)).
    /// It walks tables when its terms and filter allow it, archetypes when
    /// the builder's filter names a sparse-set component.
    pub fn from_builder(builder: &mut super::QueryBuilder<D, F>) -> Self {
        let mut component_access = builder.access().clone();
        let exact: Option<Box<[ComponentId]>> = builder.exact().map(Into::into);
        let world = builder.world_mut();
        // A filter naming a sparse-set component (or one not registered)
        // splits a table's rows between matched and unmatched archetypes,
        // and an exact set may too: such a query walks archetypes.
        let splits_tables = exact.is_some()
            || component_access.filter_ids().any(|id| {
                world.components().get_info(id).is_none_or(|info| {
                    info.storage_type() == crate::component::StorageType::SparseSet
                })
            });
        let mut fetch_state = D::init_state(world);
        let filter_state = F::init_state(world);
        let mut own = FilteredAccess::default();
        D::update_component_access(&fetch_state, &mut own);
        let available = builder_only_access(own.access(), component_access.access());
        D::provide_extra_access(&mut fetch_state, own.access_mut(), &available);
        component_access.set_entity_scope();
        let default_excluded = default_excluded::<D, F>(world, &mut component_access);
        let mut state = QueryState {
            world_id: world.id(),
            archetype_generation: ArchetypeGeneration::initial(),
            table_matches: Vec::new(),
            matched_archetypes: FixedBitSet::new(),
            matched_table_ids: Vec::new(),
            matched_table_columns: Vec::new(),
            matched_archetype_ids: Vec::new(),
            component_access,
            default_excluded,
            fetch_state,
            filter_state,
            archetype_walk: Self::IS_DENSE && splits_tables,
            exact,
            marker: PhantomData,
        };
        state.update_archetypes(world);
        state
    }

    /// The components read and written, and the filter.
    #[inline]
    pub fn component_access(&self) -> &FilteredAccess {
        &self.component_access
    }

    /// The id of the world this state belongs to.
    #[inline]
    pub fn world_id(&self) -> WorldId {
        self.world_id
    }

    /// The matched tables.
    #[inline]
    pub fn matched_tables(&self) -> &[TableId] {
        &self.matched_table_ids
    }

    /// The matched archetypes.
    #[inline]
    pub fn matched_archetypes(&self) -> &[ArchetypeId] {
        &self.matched_archetype_ids
    }

    /// Whether the state matches an archetype (as of its last update).
    #[inline]
    pub fn matches_archetype(&self, id: ArchetypeId) -> bool {
        self.matched_archetypes.contains(id.index())
    }

    /// # Panics
    /// If `world_id` is not this state's world.
    #[inline]
    #[track_caller]
    pub fn validate_world(&self, world_id: WorldId) {
        if self.world_id != world_id {
            mismatched_world(type_name::<Self>(), self.world_id, world_id);
        }
    }

    /// Brings the match cache up to date with the world's archetypes.
    ///
    /// # Panics
    /// If `world` is not the world this state was built for.
    #[inline]
    #[track_caller]
    pub fn update_archetypes(&mut self, world: &World) {
        self.update_archetypes_unsafe_world_cell(UnsafeWorldCell::new_readonly(world));
    }

    /// [`QueryState::update_archetypes`] through a world cell (reads
    /// archetype metadata only).
    #[inline]
    #[track_caller]
    pub fn update_archetypes_unsafe_world_cell(&mut self, world: UnsafeWorldCell<'_>) {
        self.validate_world(world.id());
        // Out of line: the up-to-date check stays a compare at every
        // `get` and `iter`.
        if self.archetype_generation != world.archetypes().generation() {
            self.match_new_archetypes(world);
        }
    }

    /// Whether an archetype of the components for which `set_contains_id`
    /// answers true matches the query, filters and default exclusions
    /// (disabled entities) included. A query built with
    /// [`QueryBuilder::exclusive_ids`](crate::query::QueryBuilder::exclusive_ids) is checked for its components only:
    /// the predicate cannot tell which others the set holds.
    pub fn matches_component_set(&self, set_contains_id: &impl Fn(ComponentId) -> bool) -> bool {
        // The access's filter holds the terms of a `QueryBuilder`, which
        // `D` and `F` alone do not know.
        D::matches_component_set(&self.fetch_state, set_contains_id)
            && F::matches_component_set(&self.filter_state, set_contains_id)
            && self.component_access.matches_component_set(set_contains_id)
            && !self.default_excluded.iter().any(|&id| set_contains_id(id))
            && self
                .exact
                .as_ref()
                .is_none_or(|exact| exact.iter().all(|&id| set_contains_id(id)))
    }

    #[inline(never)]
    fn match_new_archetypes(&mut self, world: UnsafeWorldCell<'_>) {
        let archetypes = world.archetypes();
        // SAFETY: only the tables' layout (their columns) is read.
        let tables = &unsafe { world.storages() }.tables;
        let old = self.archetype_generation;
        // Candidates: the archetypes (new since `old`) containing the
        // required component with the fewest archetypes.
        let rarest = self
            .component_access
            .required()
            .map(|id| archetypes.containing(id))
            .min_by_key(|records| records.len());
        match rarest {
            Some(records) => {
                let start = records.partition_point(|r| r.archetype_id < old.0);
                for record in &records[start..] {
                    self.new_archetype(&archetypes[record.archetype_id], tables);
                }
            }
            None => {
                for archetype in &archetypes[old..] {
                    self.new_archetype(archetype, tables);
                }
            }
        }
        self.archetype_generation = archetypes.generation();
    }

    fn new_archetype(&mut self, archetype: &Archetype, tables: &Tables) {
        let contains = |id| archetype.contains(id);
        if !(self.matches_component_set(&contains)
            && self
                .exact
                .as_ref()
                .is_none_or(|exact| archetype.component_count() == exact.len()))
        {
            return;
        }
        let table_index = archetype.table_id().index();
        let new_table = self
            .table_matches
            .get(table_index)
            .is_none_or(|&m| m == NOT_MATCHED);
        // The column cache slots of a new table, built and checked before
        // anything is recorded: if an impl panics or miscounts, the state
        // stays as it was (a caught panic must not leave a table whose
        // slots iteration would misread).
        let mut slots = Vec::new();
        if Self::IS_DENSE && new_table {
            let table = &tables[archetype.table_id()];
            D::table_columns(&self.fetch_state, table, &mut slots);
            F::table_columns(&self.filter_state, table, &mut slots);
            // Iteration trusts the cache's layout: check it where it is
            // built, once per table.
            assert_eq!(
                slots.len(),
                Self::TABLE_COLUMNS,
                "the `WorldQuery` impls of query `{}` cache a number of column slots \
                 other than their `TABLE_COLUMNS`",
                type_name::<(D, F)>()
            );
        }
        let archetype_index = archetype.id().index();
        if !self.matched_archetypes.contains(archetype_index) {
            self.matched_archetypes.grow(archetype_index + 1);
            self.matched_archetypes.insert(archetype_index);
            self.matched_archetype_ids.push(archetype.id());
        }
        if new_table {
            let position = u32::try_from(self.matched_table_ids.len())
                .ok()
                .filter(|&p| p != NOT_MATCHED)
                .expect("a query matches fewer than u32::MAX tables");
            if self.table_matches.len() <= table_index {
                self.table_matches.resize(table_index + 1, NOT_MATCHED);
            }
            self.table_matches[table_index] = position;
            self.matched_table_ids.push(archetype.table_id());
            self.matched_table_columns.extend_from_slice(&slots);
        }
    }

    /// This state seen as the state of the read-only twin of `D`.
    #[inline]
    pub fn as_readonly(&self) -> &QueryState<D::ReadOnly, F> {
        const {
            assert!(
                <D::ReadOnly as WorldQuery>::TABLE_COLUMNS == D::TABLE_COLUMNS
                    && <D::ReadOnly as WorldQuery>::IS_DENSE == D::IS_DENSE,
                "a query's read-only twin must walk the same way and share its column cache"
            );
        }
        // SAFETY: `D::ReadOnly::State == D::State` (a bound of
        // `QueryData`), so both `repr(C)` structs have the same fields of the
        // same types; the read-only twin accesses a subset of what `D`
        // accesses, so the recorded access stays an upper bound; it shares
        // `D`'s column cache and walk (the `QueryData` contract; checked
        // above for the number of slots and for density).
        unsafe { &*(self as *const Self).cast::<QueryState<D::ReadOnly, F>>() }
    }

    // ---- iteration --------------------------------------------------------

    /// Read-only items of every matching entity.
    #[inline]
    #[track_caller]
    pub fn iter<'w, 's>(&'s mut self, world: &'w World) -> QueryIter<'w, 's, D::ReadOnly, F> {
        self.update_archetypes(world);
        // SAFETY: read-only data through a shared world borrow; the world
        // matches (checked above).
        unsafe {
            self.as_readonly().iter_unchecked_manual(
                UnsafeWorldCell::new_readonly(world),
                world.last_change_tick(),
                world.change_tick(),
            )
        }
    }

    /// Items of every matching entity, mutably.
    #[inline]
    #[track_caller]
    pub fn iter_mut<'w, 's>(&'s mut self, world: &'w mut World) -> QueryIter<'w, 's, D, F> {
        self.update_archetypes(world);
        let (last_run, this_run) = (world.last_change_tick(), world.change_tick());
        // SAFETY: exclusive world borrow; the world matches.
        unsafe {
            self.iter_unchecked_manual(UnsafeWorldCell::new_mutable(world), last_run, this_run)
        }
    }

    /// Iterates with explicit ticks, without updating the match cache.
    ///
    /// # Safety
    /// `world` is this state's world, already passed to
    /// `update_archetypes*`, and the caller has the access this state
    /// records for as long as the iterator and its items live.
    #[inline]
    pub unsafe fn iter_unchecked_manual<'w, 's>(
        &'s self,
        world: UnsafeWorldCell<'w>,
        last_run: Tick,
        this_run: Tick,
    ) -> QueryIter<'w, 's, D, F> {
        // SAFETY: forwarded.
        unsafe { QueryIter::new(world, self, last_run, this_run) }
    }

    /// Calls `func` with the read-only item of every matching entity, on
    /// the fast internal-iteration path.
    #[inline]
    #[track_caller]
    pub fn for_each<'w>(
        &mut self,
        world: &'w World,
        func: impl FnMut(<D::ReadOnly as QueryData>::Item<'w>),
    ) {
        self.iter(world).for_each(func);
    }

    /// Calls `func` with the item of every matching entity, mutably, on the
    /// fast internal-iteration path.
    #[inline]
    #[track_caller]
    pub fn for_each_mut<'w>(&mut self, world: &'w mut World, func: impl FnMut(D::Item<'w>)) {
        self.iter_mut(world).for_each(func);
    }

    /// The number of matching entities.
    #[inline]
    #[track_caller]
    pub fn count(&mut self, world: &World) -> usize {
        self.iter(world).count()
    }

    /// Whether no entity matches.
    #[inline]
    #[track_caller]
    pub fn is_empty(&mut self, world: &World) -> bool {
        self.iter(world).next().is_none()
    }

    /// A parallel iterator over read-only items (on rayon).
    #[inline]
    #[track_caller]
    pub fn par_iter<'w, 's>(
        &'s mut self,
        world: &'w World,
    ) -> QueryParIter<'w, 's, D::ReadOnly, F> {
        self.update_archetypes(world);
        QueryParIter::new(
            UnsafeWorldCell::new_readonly(world),
            self.as_readonly(),
            world.last_change_tick(),
            world.change_tick(),
        )
    }

    /// A parallel iterator over items, mutably (on rayon).
    #[inline]
    #[track_caller]
    pub fn par_iter_mut<'w, 's>(&'s mut self, world: &'w mut World) -> QueryParIter<'w, 's, D, F> {
        self.update_archetypes(world);
        let (last_run, this_run) = (world.last_change_tick(), world.change_tick());
        QueryParIter::new(
            UnsafeWorldCell::new_mutable(world),
            self,
            last_run,
            this_run,
        )
    }

    // ---- single entities ------------------------------------------------------

    /// The read-only item of one entity.
    #[inline]
    #[track_caller]
    pub fn get<'w>(
        &mut self,
        world: &'w World,
        entity: Entity,
    ) -> Result<<D::ReadOnly as QueryData>::Item<'w>, QueryEntityError> {
        self.update_archetypes(world);
        // SAFETY: read-only data through a shared world borrow.
        unsafe {
            self.as_readonly().get_unchecked_manual(
                UnsafeWorldCell::new_readonly(world),
                entity,
                world.last_change_tick(),
                world.change_tick(),
            )
        }
    }

    /// The item of one entity, mutably.
    #[inline]
    #[track_caller]
    pub fn get_mut<'w>(
        &mut self,
        world: &'w mut World,
        entity: Entity,
    ) -> Result<D::Item<'w>, QueryEntityError> {
        self.update_archetypes(world);
        let (last_run, this_run) = (world.last_change_tick(), world.change_tick());
        // SAFETY: exclusive world borrow.
        unsafe {
            self.get_unchecked_manual(
                UnsafeWorldCell::new_mutable(world),
                entity,
                last_run,
                this_run,
            )
        }
    }

    /// The read-only items of several entities at once, in the order
    /// given; an entity may be named twice.
    ///
    /// # Errors
    /// The first entity (in order) that does not exist or does not match.
    #[inline]
    #[track_caller]
    pub fn get_many<'w, const N: usize>(
        &mut self,
        world: &'w World,
        entities: [Entity; N],
    ) -> Result<[<D::ReadOnly as QueryData>::Item<'w>; N], QueryEntityError> {
        self.query(world).get_many_inner(entities)
    }

    /// The items of several distinct entities at once, mutably.
    ///
    /// # Errors
    /// [`QueryEntityError::AliasedMutability`] naming the first entity
    /// given twice; otherwise the first entity (in order) that does not
    /// exist or does not match.
    #[inline]
    #[track_caller]
    pub fn get_many_mut<'w, const N: usize>(
        &mut self,
        world: &'w mut World,
        entities: [Entity; N],
    ) -> Result<[D::Item<'w>; N], QueryEntityError> {
        self.query_mut(world).get_many_mut_inner(entities)
    }

    /// The read-only items of several distinct entities at once.
    ///
    /// # Errors
    /// The first entity (in order) that does not exist or does not match.
    #[inline]
    #[track_caller]
    pub fn get_many_unique<'w, const N: usize>(
        &mut self,
        world: &'w World,
        entities: UniqueEntityArray<N>,
    ) -> Result<[<D::ReadOnly as QueryData>::Item<'w>; N], QueryEntityError> {
        self.query(world).get_many_unique_inner(entities)
    }

    /// The items of several distinct entities at once, mutably.
    ///
    /// # Errors
    /// The first entity (in order) that does not exist or does not match.
    #[inline]
    #[track_caller]
    pub fn get_many_unique_mut<'w, const N: usize>(
        &mut self,
        world: &'w mut World,
        entities: UniqueEntityArray<N>,
    ) -> Result<[D::Item<'w>; N], QueryEntityError> {
        self.query_mut(world).get_many_unique_inner(entities)
    }

    /// The read-only item of one entity, without updating the match cache
    /// (for a state shared through `&self`): an entity of an archetype
    /// created since the last update is reported as not matching.
    ///
    /// # Panics
    /// If `world` is not this state's world.
    #[inline]
    #[track_caller]
    pub fn get_manual<'w>(
        &self,
        world: &'w World,
        entity: Entity,
    ) -> Result<<D::ReadOnly as QueryData>::Item<'w>, QueryEntityError> {
        self.query_manual(world).get_inner(entity)
    }

    // ---- as a `Query` ---------------------------------------------------------

    /// A read-only [`Query`] over `world`, after bringing the match cache
    /// up to date.
    #[inline]
    #[track_caller]
    pub fn query<'w, 's>(&'s mut self, world: &'w World) -> Query<'w, 's, D::ReadOnly, F> {
        self.update_archetypes(world);
        self.query_manual(world)
    }

    /// A read-only [`Query`] over `world`, without updating the match
    /// cache (see [`QueryState::iter_manual`]).
    ///
    /// # Panics
    /// If `world` is not this state's world.
    #[inline]
    #[track_caller]
    pub fn query_manual<'w, 's>(&'s self, world: &'w World) -> Query<'w, 's, D::ReadOnly, F> {
        self.validate_world(world.id());
        // SAFETY: read-only data through a shared world borrow; the world
        // matches (checked above).
        unsafe {
            Query::new(
                UnsafeWorldCell::new_readonly(world),
                self.as_readonly(),
                world.last_change_tick(),
                world.change_tick(),
            )
        }
    }

    /// A [`Query`] over `world` with mutable access, after bringing the
    /// match cache up to date.
    ///
    /// Takes `&mut World` where bevy's takes `impl Into<DeferredWorld>`: a
    /// query needs no more than exclusive access to the world.
    #[inline]
    #[track_caller]
    pub fn query_mut<'w, 's>(&'s mut self, world: &'w mut World) -> Query<'w, 's, D, F> {
        self.update_archetypes(world);
        let (last_run, this_run) = (world.last_change_tick(), world.change_tick());
        // SAFETY: exclusive world borrow; the world matches (checked by
        // `update_archetypes`).
        unsafe {
            Query::new(
                UnsafeWorldCell::new_mutable(world),
                self,
                last_run,
                this_run,
            )
        }
    }

    // ---- lists of entities and combinations -----------------------------------

    /// The read-only items of the entities of `entities`, in its order,
    /// each an error if the entity does not exist or does not match.
    #[inline]
    #[track_caller]
    pub fn iter_many<'w, 's, EntityList: IntoIterator<Item: Borrow<Entity>>>(
        &'s mut self,
        world: &'w World,
        entities: EntityList,
    ) -> QueryManyIter<'w, 's, D::ReadOnly, F, EntityList::IntoIter> {
        self.query(world).iter_many_inner(entities)
    }

    /// [`QueryState::iter_many`] without updating the match cache.
    ///
    /// # Panics
    /// If `world` is not this state's world.
    #[inline]
    #[track_caller]
    pub fn iter_many_manual<'w, 's, EntityList: IntoIterator<Item: Borrow<Entity>>>(
        &'s self,
        world: &'w World,
        entities: EntityList,
    ) -> QueryManyIter<'w, 's, D::ReadOnly, F, EntityList::IntoIter> {
        self.query_manual(world).iter_many_inner(entities)
    }

    /// The items of the entities of `entities`, mutably, one at a time
    /// through [`QueryManyIter::fetch_next`] (the list may repeat an
    /// entity).
    #[inline]
    #[track_caller]
    pub fn iter_many_mut<'w, 's, EntityList: IntoIterator<Item: Borrow<Entity>>>(
        &'s mut self,
        world: &'w mut World,
        entities: EntityList,
    ) -> QueryManyIter<'w, 's, D, F, EntityList::IntoIter> {
        self.query_mut(world).iter_many_inner(entities)
    }

    /// The read-only items of the entities of the set `entities`, in its
    /// order, each an error if the entity does not exist or does not match.
    #[inline]
    #[track_caller]
    pub fn iter_many_unique<'w, 's, EntityList: EntitySet>(
        &'s mut self,
        world: &'w World,
        entities: EntityList,
    ) -> QueryManyUniqueIter<'w, 's, D::ReadOnly, F, EntityList::IntoIter> {
        self.query(world).iter_many_unique_inner(entities)
    }

    /// [`QueryState::iter_many_unique`] without updating the match cache.
    ///
    /// # Panics
    /// If `world` is not this state's world.
    #[inline]
    #[track_caller]
    pub fn iter_many_unique_manual<'w, 's, EntityList: EntitySet>(
        &'s self,
        world: &'w World,
        entities: EntityList,
    ) -> QueryManyUniqueIter<'w, 's, D::ReadOnly, F, EntityList::IntoIter> {
        self.query_manual(world).iter_many_unique_inner(entities)
    }

    /// The items of the entities of the set `entities`, mutably, as a
    /// plain [`Iterator`] (the set names each entity once).
    #[inline]
    #[track_caller]
    pub fn iter_many_unique_mut<'w, 's, EntityList: EntitySet>(
        &'s mut self,
        world: &'w mut World,
        entities: EntityList,
    ) -> QueryManyUniqueIter<'w, 's, D, F, EntityList::IntoIter> {
        self.query_mut(world).iter_many_unique_inner(entities)
    }

    /// Every combination of `K` distinct matching entities, read-only.
    ///
    /// # Panics
    /// If `K` is 0.
    #[inline]
    #[track_caller]
    pub fn iter_combinations<'w, 's, const K: usize>(
        &'s mut self,
        world: &'w World,
    ) -> QueryCombinationIter<'w, 's, D::ReadOnly, F, K> {
        self.query(world).iter_combinations_inner()
    }

    /// Every combination of `K` distinct matching entities, mutably, one
    /// at a time through [`QueryCombinationIter::fetch_next`].
    ///
    /// # Panics
    /// If `K` is 0.
    #[inline]
    #[track_caller]
    pub fn iter_combinations_mut<'w, 's, const K: usize>(
        &'s mut self,
        world: &'w mut World,
    ) -> QueryCombinationIter<'w, 's, D, F, K> {
        self.query_mut(world).iter_combinations_inner()
    }

    /// The data and filter fetches for one walk, not yet pointed at a
    /// table or archetype.
    ///
    /// # Safety
    /// `world` is the world this state was built for, and the caller has
    /// the access this state records for as long as the fetches are used.
    #[inline(always)]
    pub(crate) unsafe fn init_fetches<'w>(
        &self,
        world: UnsafeWorldCell<'w>,
        last_run: Tick,
        this_run: Tick,
    ) -> (D::Fetch<'w>, F::Fetch<'w>) {
        // SAFETY: the state was built for `world`, and the caller has its
        // access (caller).
        unsafe {
            (
                D::init_fetch(world, &self.fetch_state, last_run, this_run),
                F::init_fetch(world, &self.filter_state, last_run, this_run),
            )
        }
    }

    /// [`QueryState::init_fetches`], pointed through the column cache at
    /// `table`, the `position`-th table this (table-walking) state matches.
    ///
    /// # Safety
    /// As for [`QueryState::init_fetches`]; `position` is below the number
    /// of matched tables, and `table` is the table at that position.
    #[inline(always)]
    pub(crate) unsafe fn table_fetches<'w>(
        &self,
        world: UnsafeWorldCell<'w>,
        table: &'w Table,
        position: usize,
        last_run: Tick,
        this_run: Tick,
    ) -> (D::Fetch<'w>, F::Fetch<'w>) {
        let k = Self::TABLE_COLUMNS;
        debug_assert!((position + 1) * k <= self.matched_table_columns.len());
        // SAFETY: the cache holds `k` slots per matched table, in the order
        // of `matched_table_ids`, and `table` is at `position` there
        // (caller); its slots are `D`'s then `F`'s; the rest is forwarded.
        unsafe {
            let columns = self
                .matched_table_columns
                .get_unchecked(position * k..(position + 1) * k);
            let (mut fetch, mut filter) = self.init_fetches(world, last_run, this_run);
            D::set_table_cached(&mut fetch, &self.fetch_state, table, columns);
            F::set_table_cached(
                &mut filter,
                &self.filter_state,
                table,
                columns.get_unchecked(D::TABLE_COLUMNS..),
            );
            (fetch, filter)
        }
    }

    /// [`QueryState::init_fetches`], pointed at `archetype` and its table.
    ///
    /// # Safety
    /// As for [`QueryState::init_fetches`]; this state matches `archetype`,
    /// and `table` is its table.
    #[inline(always)]
    pub(crate) unsafe fn archetype_fetches<'w>(
        &self,
        world: UnsafeWorldCell<'w>,
        archetype: &'w Archetype,
        table: &'w Table,
        last_run: Tick,
        this_run: Tick,
    ) -> (D::Fetch<'w>, F::Fetch<'w>) {
        // SAFETY: forwarded; the archetype matches and `table` is its
        // table (caller).
        unsafe {
            let (mut fetch, mut filter) = self.init_fetches(world, last_run, this_run);
            D::set_archetype(&mut fetch, &self.fetch_state, archetype, table);
            F::set_archetype(&mut filter, &self.filter_state, archetype, table);
            (fetch, filter)
        }
    }

    /// The item of one entity with explicit ticks, without updating the
    /// match cache.
    ///
    /// # Safety
    /// As for [`QueryState::iter_unchecked_manual`].
    #[inline]
    pub unsafe fn get_unchecked_manual<'w>(
        &self,
        world: UnsafeWorldCell<'w>,
        entity: Entity,
        last_run: Tick,
        this_run: Tick,
    ) -> Result<D::Item<'w>, QueryEntityError> {
        let location = world
            .entities()
            .get(entity)
            .ok_or(QueryEntityError::NoSuchEntity(entity))?;
        if Self::IS_DENSE && !self.archetype_walk {
            // Every archetype of a matched table matches a query that walks
            // tables, so the table decides, and its cached slots point the
            // fetches at it without looking its columns up.
            let position = match self.table_matches.get(location.table_id.index()) {
                Some(&position) if position != NOT_MATCHED => position as usize,
                _ => return Err(QueryEntityError::QueryDoesNotMatch(entity)),
            };
            // SAFETY: the fetch below reads only what the caller's access
            // covers.
            let table = &unsafe { world.storages() }.tables[location.table_id];
            // SAFETY: the table is matched at `position`; the caller has the
            // access.
            unsafe {
                let (mut fetch, mut filter) =
                    self.table_fetches(world, table, position, last_run, this_run);
                return if F::filter_fetch(&mut filter, entity, location.table_row) {
                    Ok(D::fetch(&mut fetch, entity, location.table_row))
                } else {
                    Err(QueryEntityError::QueryDoesNotMatch(entity))
                };
            }
        }
        if !self
            .matched_archetypes
            .contains(location.archetype_id.index())
        {
            return Err(QueryEntityError::QueryDoesNotMatch(entity));
        }
        let archetype = &world.archetypes()[location.archetype_id];
        // SAFETY: the fetch below reads only what the caller's access
        // covers.
        let table = &unsafe { world.storages() }.tables[location.table_id];
        // SAFETY: the archetype matches and `table` is its table; the
        // caller has the access.
        unsafe {
            let (mut fetch, mut filter) =
                self.archetype_fetches(world, archetype, table, last_run, this_run);
            if F::filter_fetch(&mut filter, entity, location.table_row) {
                Ok(D::fetch(&mut fetch, entity, location.table_row))
            } else {
                Err(QueryEntityError::QueryDoesNotMatch(entity))
            }
        }
    }

    /// Whether `entity` matches the query with the ticks `last_run` and
    /// `this_run` (which `Added` and `Changed` filters compare), without
    /// updating the match cache.
    ///
    /// # Panics
    /// If `world` is not this state's world.
    #[track_caller]
    pub fn contains(&self, entity: Entity, world: &World, last_run: Tick, this_run: Tick) -> bool {
        self.validate_world(world.id());
        // SAFETY: read-only access through a shared world borrow; the item
        // is dropped at once.
        unsafe {
            self.as_readonly()
                .get_unchecked_manual(
                    UnsafeWorldCell::new_readonly(world),
                    entity,
                    last_run,
                    this_run,
                )
                .is_ok()
        }
    }

    /// The read-only item of the only matching entity.
    #[inline]
    #[track_caller]
    pub fn single<'w>(
        &mut self,
        world: &'w World,
    ) -> Result<<D::ReadOnly as QueryData>::Item<'w>, QuerySingleError> {
        single_of(self.iter(world), type_name::<Self>())
    }

    /// The item of the only matching entity, mutably.
    #[inline]
    #[track_caller]
    pub fn single_mut<'w>(
        &mut self,
        world: &'w mut World,
    ) -> Result<D::Item<'w>, QuerySingleError> {
        single_of(self.iter_mut(world), type_name::<Self>())
    }
}

impl<D: ReadOnlyQueryData, F: QueryFilter> QueryState<D, F> {
    /// Read-only items, without updating the match cache (for a state
    /// shared through `&self`). Archetypes created since the last update
    /// are not seen.
    ///
    /// # Panics
    /// If `world` is not this state's world.
    #[inline]
    #[track_caller]
    pub fn iter_manual<'w, 's>(&'s self, world: &'w World) -> QueryIter<'w, 's, D, F> {
        self.validate_world(world.id());
        // SAFETY: read-only data through a shared world borrow.
        unsafe {
            self.iter_unchecked_manual(
                UnsafeWorldCell::new_readonly(world),
                world.last_change_tick(),
                world.change_tick(),
            )
        }
    }
}

pub(crate) fn single_of<I: Iterator>(
    mut iter: I,
    query: &'static str,
) -> Result<I::Item, QuerySingleError> {
    let first = iter.next().ok_or(QuerySingleError::NoEntities(query))?;
    if iter.next().is_some() {
        return Err(QuerySingleError::MultipleEntities(query));
    }
    Ok(first)
}

#[cold]
#[track_caller]
fn mismatched_world(query: &str, expected: WorldId, actual: WorldId) -> ! {
    panic!(
        "{query} was built for world {expected:?} and used with world {actual:?}: a query state belongs to the world that made it"
    )
}

impl World {
    /// A query state for the data `D` (no filter).
    #[track_caller]
    pub fn query<D: QueryData>(&mut self) -> QueryState<D, ()> {
        QueryState::new(self)
    }

    /// A query state for the data `D` with the filter `F`.
    #[track_caller]
    pub fn query_filtered<D: QueryData, F: QueryFilter>(&mut self) -> QueryState<D, F> {
        QueryState::new(self)
    }

    /// [`World::query`] through `&World`: `None` if a component the query
    /// names is not registered yet.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Component)]
    /// struct Speed(f32);
    ///
    /// let mut world = World::new();
    /// assert!(world.try_query::<&Speed>().is_none());
    /// world.spawn(Speed(1.0));
    /// let mut speeds = world.try_query::<&Speed>().unwrap();
    /// assert_eq!(speeds.iter(&world).count(), 1);
    /// ```
    #[track_caller]
    pub fn try_query<D: QueryData>(&self) -> Option<QueryState<D, ()>> {
        QueryState::try_new(self)
    }

    /// [`World::query_filtered`] through `&World`: `None` if a component
    /// the query names is not registered yet.
    #[track_caller]
    pub fn try_query_filtered<D: QueryData, F: QueryFilter>(&self) -> Option<QueryState<D, F>> {
        QueryState::try_new(self)
    }
}

/// The constructor and walk choice behind query lenses (`lens.rs`).
impl<D: QueryData, F: QueryFilter> QueryState<D, F> {
    /// Whether iteration walks the matched tables (a dense query that is
    /// not a lens of an archetype-walking query) rather than archetypes.
    #[inline(always)]
    pub(crate) fn walks_tables(&self) -> bool {
        Self::IS_DENSE && !self.archetype_walk
    }

    /// The archetype generation the match cache is up to date with.
    pub(super) fn archetype_generation(&self) -> ArchetypeGeneration {
        self.archetype_generation
    }

    /// A state matching exactly `archetype_ids` of `world`, with the given
    /// access and term states; `source_walks_tables` tells whether the
    /// query these matches come from walks tables.
    pub(super) fn from_matches(
        world: UnsafeWorldCell<'_>,
        generation: ArchetypeGeneration,
        component_access: FilteredAccess,
        fetch_state: D::State,
        filter_state: F::State,
        archetype_ids: impl Iterator<Item = ArchetypeId>,
        source_walks_tables: bool,
    ) -> Self {
        let mut component_access = component_access;
        component_access.set_entity_scope();
        let mut state = QueryState {
            world_id: world.id(),
            archetype_generation: generation,
            table_matches: Vec::new(),
            matched_archetypes: FixedBitSet::new(),
            matched_table_ids: Vec::new(),
            matched_table_columns: Vec::new(),
            matched_archetype_ids: Vec::new(),
            component_access,
            // The source's matches already leave disabled entities out.
            default_excluded: Vec::new(),
            fetch_state,
            filter_state,
            archetype_walk: Self::IS_DENSE && !source_walks_tables,
            // The matches are given.
            exact: None,
            marker: PhantomData,
        };
        let archetypes = world.archetypes();
        // SAFETY: only the tables' layout (their columns) is read.
        let tables = &unsafe { world.storages() }.tables;
        for id in archetype_ids {
            state.new_archetype(&archetypes[id], tables);
        }
        state
    }
}

/// Applies the world's [`DefaultQueryFilters`] to a new query's access and
/// returns the disabling components the query must not match.
///
/// # Panics
/// If a dense query would have to exclude a sparse-set disabling
/// component, which its table walk cannot honour.
#[track_caller]
fn default_excluded<D: QueryData, F: QueryFilter>(
    world: &World,
    access: &mut FilteredAccess,
) -> Vec<ComponentId> {
    let Some(filters) = world.get_resource::<DefaultQueryFilters>() else {
        return Vec::new();
    };
    let excluded = filters.modify_access(access);
    if D::IS_DENSE && F::IS_DENSE {
        for &id in &excluded {
            let info = world.components().get_info(id);
            if let Some(info) = info.filter(|i| i.storage_type() == StorageType::SparseSet) {
                panic!(
                    "disabling component `{}` is stored in sparse sets, so query `{}` cannot \
                     leave it out: a disabling component must be a table component",
                    info.name(),
                    type_name::<(D, F)>()
                );
            }
        }
    }
    excluded
}
