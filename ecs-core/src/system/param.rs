use std::{
    any::type_name,
    borrow::Cow,
    ops::{Deref, DerefMut},
};

use super::{CommandQueue, Commands, SystemParamValidationError};
use crate::{
    change_detection::{CountedTick, DetectChanges, DetectChangesMut, Mut, Ref, Tick},
    component::ComponentId,
    query::{FilteredAccess, FilteredAccessSet, QueryData, QueryFilter, QueryState},
    resource::Resource,
    utils::SyncCell,
    world::{FromWorld, UnsafeWorldCell, World},
};

use super::Query;

/// What a system knows about itself: its name, the access of its
/// parameters, and the tick it last ran at.
#[derive(Debug, Clone)]
pub struct SystemMeta {
    pub(crate) name: Cow<'static, str>,
    pub(crate) access: FilteredAccessSet,
    last_run: CountedTick,
    pub(crate) has_deferred: bool,
    /// Whether a parameter uses a non-send resource, so the system must
    /// run on the thread that runs the schedule.
    is_non_send: bool,
}

impl SystemMeta {
    pub(crate) fn new(name: Cow<'static, str>) -> Self {
        SystemMeta {
            name,
            access: FilteredAccessSet::default(),
            last_run: CountedTick::default(),
            has_deferred: false,
            is_non_send: false,
        }
    }

    /// Marks the system as using a non-send resource: schedules run it on
    /// the thread that drives them, never on a worker.
    #[inline]
    pub fn set_non_send(&mut self) {
        self.is_non_send = true;
    }

    /// Whether the system may run on any thread (no parameter uses a
    /// non-send resource).
    #[inline]
    pub fn is_send(&self) -> bool {
        !self.is_non_send
    }

    /// Sets the last run of a system about to run for the first time in
    /// `world`: every value not clamped counts as added and changed.
    pub(crate) fn set_never_run(&mut self, world: &World) {
        self.last_run = CountedTick::oldest_before(world.counted_tick(world.change_tick()));
    }

    /// Starts a run at `this_run`, a tick just taken from `world`, and
    /// returns it counted for [`SystemMeta::finish_run`]. The last run is
    /// clamped first if it is older than `MAX_CHANGE_AGE`: a system may sit
    /// idle across full wraps of the clock, and nothing else can reach it
    /// meanwhile (see the [`change_detection`](crate::change_detection)
    /// module docs).
    #[inline]
    pub(crate) fn begin_run(&mut self, world: UnsafeWorldCell<'_>, this_run: Tick) -> CountedTick {
        let now = world.counted_tick(this_run);
        self.last_run.clamp(now);
        now
    }

    /// Ends a run: its tick becomes the last run.
    #[inline]
    pub(crate) fn finish_run(&mut self, this_run: CountedTick) {
        self.last_run = this_run;
    }

    /// The system's name.
    #[inline]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Renames the system: errors, panics, timings and the schedule's
    /// listings print `name` from now on.
    pub fn set_name(&mut self, name: impl Into<Cow<'static, str>>) {
        self.name = name.into();
    }

    /// The access of all parameters.
    #[inline]
    pub fn access(&self) -> &FilteredAccessSet {
        &self.access
    }

    /// The tick the system last ran at.
    #[inline]
    pub fn last_run(&self) -> Tick {
        self.last_run.tick
    }

    /// Sets the tick the system last ran at; the count on the clock that
    /// does not wrap moves by the same (signed, wrapping) distance.
    pub fn set_last_run(&mut self, last_run: Tick) {
        let distance = last_run.get().wrapping_sub(self.last_run.tick.get()) as i32;
        self.last_run = CountedTick {
            tick: last_run,
            count: self.last_run.count.wrapping_add_signed(i64::from(distance)),
        };
    }

    /// Records one parameter's access.
    ///
    /// # Panics
    /// If it conflicts with an earlier parameter of the system, naming the
    /// system, the parameter and the component. The message starts with
    /// bevy's code: `error[B0002]` when only resources conflict,
    /// `error[B0001]` otherwise.
    #[track_caller]
    pub fn add_param_access(&mut self, param: &str, access: FilteredAccess, world: &World) {
        let conflicts = self.access.get_conflicts_single(&access);
        self.assert_no_conflicts(param, &conflicts, world);
        self.access.add(access);
    }

    /// Panics, naming the system, `param` and the components, if
    /// `conflicts` (found between `param` and the earlier parameters) is
    /// not empty.
    #[track_caller]
    pub(crate) fn assert_no_conflicts(
        &self,
        param: &str,
        conflicts: &[Option<ComponentId>],
        world: &World,
    ) {
        if !conflicts.is_empty() {
            let names: Vec<String> = conflicts
                .iter()
                .map(|c| match c {
                    Some(id) => format!("`{}`", world.components().get_name(*id).unwrap_or("?")),
                    None => "the whole world".to_owned(),
                })
                .collect();
            // bevy's codes: B0002 when only resources clash, B0001 when components do.
            let only_resources = conflicts
                .iter()
                .all(|c| c.is_some_and(|id| world.components().is_resource(id)));
            let code = if only_resources { "B0002" } else { "B0001" };
            panic!(
                "error[{code}]: system `{}`: parameter `{param}` conflicts with an earlier parameter on {}; \
                 make them disjoint with `With`/`Without` filters, or merge them into one parameter",
                self.name,
                names.join(", ")
            );
        }
    }

    /// Takes `system`'s last-run tick, so a copy made by
    /// [`for_member`](Self::for_member) stays current.
    pub(crate) fn sync_last_run(&mut self, system: &SystemMeta) {
        self.last_run = system.last_run;
    }

    /// Adds back what parameters recorded in `recorded`: their access, their
    /// deferred work and their use of non-send data. A meta that safe code
    /// could replace (through [`SystemState::meta_mut`](super::SystemState::meta_mut))
    /// then never asks the scheduler for less than the parameters use.
    pub(crate) fn keep_recorded(&mut self, recorded: &SystemMeta) {
        self.access.extend(recorded.access.clone());
        self.has_deferred |= recorded.has_deferred;
        self.is_non_send |= recorded.is_non_send;
    }

    /// A meta with this system's name and last run and no access: what a
    /// member of a [`ParamSet`](super::ParamSet) records its access in, and
    /// fetches with.
    pub(crate) fn for_member(&self) -> SystemMeta {
        SystemMeta {
            name: self.name.clone(),
            access: FilteredAccessSet::default(),
            last_run: self.last_run,
            has_deferred: false,
            is_non_send: false,
        }
    }

    /// Marks the system as having deferred work (commands) to apply.
    pub fn set_has_deferred(&mut self) {
        self.has_deferred = true;
    }
}

/// A parameter of a system function: a query, a resource, commands…
///
/// `init_state` runs once (it registers the parameter's access, which the
/// scheduler uses to run non-conflicting systems at once); `get_param` runs
/// at every run.
///
/// # Safety
/// `init_state` must record in `meta` every component and resource that
/// `get_param` reads or writes.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a system parameter",
    label = "not a system parameter",
    note = "system parameters are `Query`, `Res`, `ResMut`, `Option<Res>`, `Option<ResMut>`, `Local`, `Commands`, `&World`, tuples of them and `#[derive(SystemParam)]` structs"
)]
pub unsafe trait SystemParam: Sized {
    /// What the parameter keeps between runs.
    type State: Send + Sync + 'static;
    /// The parameter as the system receives it.
    type Item<'w, 's>: SystemParam<State = Self::State>;

    /// Builds the state and records the access.
    fn init_state(world: &mut World, meta: &mut SystemMeta) -> Self::State;

    /// Fetches the parameter for one run.
    ///
    /// # Safety
    /// `world` is the world `state` was built for, and the caller holds the
    /// access recorded in `meta` for the item's lifetime.
    unsafe fn get_param<'w, 's>(
        state: &'s mut Self::State,
        meta: &SystemMeta,
        world: UnsafeWorldCell<'w>,
        change_tick: Tick,
    ) -> Self::Item<'w, 's>;

    /// Fetches the parameter for one run, or says why the system must not
    /// run: a [`SystemParamValidationError`] that skips it (as
    /// [`Single`](super::Single) does when no entity or several match) or
    /// fails it. By default, [`get_param`](SystemParam::get_param), which
    /// never fails.
    ///
    /// Systems fetch their parameters through this method; `get_param`
    /// of a parameter that can fail validation panics where this returns
    /// an error. Bevy's `get_param` returns the `Result` itself; here the
    /// fallible fetch is a separate method so that infallible parameters
    /// implement `get_param` alone.
    ///
    /// # Safety
    /// As [`get_param`](SystemParam::get_param).
    #[inline]
    unsafe fn try_get_param<'w, 's>(
        state: &'s mut Self::State,
        meta: &SystemMeta,
        world: UnsafeWorldCell<'w>,
        change_tick: Tick,
    ) -> Result<Self::Item<'w, 's>, SystemParamValidationError> {
        // SAFETY: forwarded from the caller.
        Ok(unsafe { Self::get_param(state, meta, world, change_tick) })
    }

    /// Applies deferred work (commands) with exclusive world access.
    fn apply(state: &mut Self::State, world: &mut World) {
        let _ = (state, world);
    }

    /// Moves deferred work (commands) onto `queue`, to be applied later
    /// (observers: after the operation that triggered them).
    fn queue(state: &mut Self::State, queue: &mut CommandQueue) {
        let _ = (state, queue);
    }
}

/// The item type of a system parameter.
pub type SystemParamItem<'w, 's, P> = <P as SystemParam>::Item<'w, 's>;

// ---- Query ----------------------------------------------------------------------

// SAFETY: the query's component access is recorded (and checked against
// the other parameters).
unsafe impl<D: QueryData + 'static, F: QueryFilter + 'static> SystemParam for Query<'_, '_, D, F> {
    type State = QueryState<D, F>;
    type Item<'w, 's> = Query<'w, 's, D, F>;

    #[track_caller]
    fn init_state(world: &mut World, meta: &mut SystemMeta) -> QueryState<D, F> {
        let state = QueryState::new(world);
        meta.add_param_access(
            type_name::<Query<D, F>>(),
            state.component_access().clone(),
            world,
        );
        state
    }

    unsafe fn get_param<'w, 's>(
        state: &'s mut QueryState<D, F>,
        meta: &SystemMeta,
        world: UnsafeWorldCell<'w>,
        change_tick: Tick,
    ) -> Query<'w, 's, D, F> {
        state.update_archetypes_unsafe_world_cell(world);
        // SAFETY: the caller holds the recorded access.
        unsafe { Query::new(world, state, meta.last_run(), change_tick) }
    }
}

// ---- resources ------------------------------------------------------------------

/// Shared access to a resource in a system, with its change ticks.
pub struct Res<'w, R: Resource>(Ref<'w, R>);

/// Mutable access to a resource in a system; writing marks it changed.
pub struct ResMut<'w, R: Resource>(Mut<'w, R>);

impl<'w, R: Resource> Res<'w, R> {
    /// A second handle to the same resource, with the same ticks (an
    /// associated function: `Res::clone(&res)`, since `res.clone()` clones
    /// the resource through `Deref`).
    #[allow(clippy::should_implement_trait)]
    pub fn clone(this: &Self) -> Self {
        Res(Ref {
            value: this.0.value,
            ticks: this.0.ticks,
        })
    }

    /// The reference, with the borrow's full lifetime.
    pub fn into_inner(self) -> &'w R {
        self.0.into_inner()
    }
}

impl<'w, R: Resource> ResMut<'w, R> {
    /// The mutable reference with the borrow's full lifetime (marks it
    /// changed).
    pub fn into_inner(self) -> &'w mut R {
        self.0.into_inner()
    }
}

crate::change_detection::mut_wrapper_methods!(ResMut, R: Resource);

impl<R: Resource> Deref for Res<'_, R> {
    type Target = R;
    fn deref(&self) -> &R {
        &self.0
    }
}

impl<R: Resource> Deref for ResMut<'_, R> {
    type Target = R;
    fn deref(&self) -> &R {
        &self.0
    }
}

impl<R: Resource> DerefMut for ResMut<'_, R> {
    fn deref_mut(&mut self) -> &mut R {
        &mut self.0
    }
}

impl<R: Resource> DetectChanges for Res<'_, R> {
    fn is_added(&self) -> bool {
        self.0.is_added()
    }
    fn is_changed(&self) -> bool {
        self.0.is_changed()
    }
    fn last_changed(&self) -> Tick {
        self.0.last_changed()
    }
    fn added(&self) -> Tick {
        self.0.added()
    }
}

impl<R: Resource> DetectChanges for ResMut<'_, R> {
    fn is_added(&self) -> bool {
        self.0.is_added()
    }
    fn is_changed(&self) -> bool {
        self.0.is_changed()
    }
    fn last_changed(&self) -> Tick {
        self.0.last_changed()
    }
    fn added(&self) -> Tick {
        self.0.added()
    }
}

impl<R: Resource> DetectChangesMut for ResMut<'_, R> {
    type Inner = R;
    fn set_changed(&mut self) {
        self.0.set_changed();
    }
    fn bypass_change_detection(&mut self) -> &mut R {
        self.0.bypass_change_detection()
    }
}

impl<R: Resource + std::fmt::Debug> std::fmt::Debug for Res<'_, R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Res").field(&*self.0).finish()
    }
}

impl<R: Resource + std::fmt::Debug> std::fmt::Debug for ResMut<'_, R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("ResMut").field(&*self.0).finish()
    }
}

fn resource_access(
    world: &mut World,
    meta: &mut SystemMeta,
    param: &str,
    id: ComponentId,
    write: bool,
) {
    let mut access = crate::query::Access::default();
    if write {
        access.add_write(id);
    } else {
        access.add_read(id);
    }
    meta.add_param_access(param, FilteredAccess::resources(access), world);
}

#[cold]
#[track_caller]
fn missing_resource<R: 'static>(meta: &SystemMeta, world: UnsafeWorldCell<'_>) -> ! {
    panic!("{}", missing_resource_message::<R>(meta, world))
}

/// Why `R` cannot be fetched for the system of `meta`: it is absent, or a
/// `resource_scope` holds it.
#[cold]
fn missing_resource_message<R: 'static>(meta: &SystemMeta, world: UnsafeWorldCell<'_>) -> String {
    if world.resource_is_scoped(std::any::TypeId::of::<R>()) {
        return format!(
            "{}; it was requested by system `{}`",
            crate::world::taken_by_scope(type_name::<R>()),
            meta.name
        );
    }
    format!(
        "resource `{}` requested by system `{}` does not exist: insert it before running the system, \
         or take `Option<Res<{0}>>`",
        type_name::<R>(),
        meta.name
    )
}

type ResourceCells<'w> = (
    *mut u8,
    &'w std::cell::UnsafeCell<Tick>,
    &'w std::cell::UnsafeCell<Tick>,
);

fn resource_cells<'w>(id: ComponentId, world: UnsafeWorldCell<'w>) -> Option<ResourceCells<'w>> {
    // SAFETY: only `id`'s cells are taken; the param that reads them
    // recorded access to it.
    unsafe { world.storages() }
        .resources
        .get(id)?
        .get_with_tick_cells()
}

/// # Safety
/// The cells hold an `R`, and the caller holds read access to it.
unsafe fn make_res<'w, R: Resource>(
    (ptr, added, changed): ResourceCells<'w>,
    meta: &SystemMeta,
    this_run: Tick,
) -> Res<'w, R> {
    // SAFETY: guaranteed by the caller; only shared references are made.
    unsafe {
        Res(Ref::new(
            &*ptr.cast::<R>(),
            &*added.get(),
            &*changed.get(),
            meta.last_run(),
            this_run,
        ))
    }
}

/// # Safety
/// The cells hold an `R`, and the caller holds write access to it.
unsafe fn make_res_mut<'w, R: Resource>(
    (ptr, added, changed): ResourceCells<'w>,
    meta: &SystemMeta,
    this_run: Tick,
) -> ResMut<'w, R> {
    // SAFETY: guaranteed by the caller.
    unsafe {
        ResMut(Mut::new(
            &mut *ptr.cast::<R>(),
            &mut *added.get(),
            &mut *changed.get(),
            meta.last_run(),
            this_run,
        ))
    }
}

// SAFETY: records a read of the resource.
unsafe impl<R: Resource> SystemParam for Res<'_, R> {
    type State = ComponentId;
    type Item<'w, 's> = Res<'w, R>;

    fn init_state(world: &mut World, meta: &mut SystemMeta) -> ComponentId {
        let id = world.components.register_resource::<R>();
        resource_access(world, meta, type_name::<Self>(), id, false);
        id
    }

    unsafe fn get_param<'w, 's>(
        id: &'s mut Self::State,
        meta: &SystemMeta,
        world: UnsafeWorldCell<'w>,
        change_tick: Tick,
    ) -> Self::Item<'w, 's> {
        match resource_cells(*id, world) {
            // SAFETY: `id` is `R`'s resource id; read access is recorded.
            Some(cells) => unsafe { make_res(cells, meta, change_tick) },
            None => missing_resource::<R>(meta, world),
        }
    }

    #[inline]
    unsafe fn try_get_param<'w, 's>(
        id: &'s mut Self::State,
        meta: &SystemMeta,
        world: UnsafeWorldCell<'w>,
        change_tick: Tick,
    ) -> Result<Self::Item<'w, 's>, SystemParamValidationError> {
        match resource_cells(*id, world) {
            // SAFETY: `id` is `R`'s resource id; read access is recorded.
            Some(cells) => Ok(unsafe { make_res(cells, meta, change_tick) }),
            None => Err(SystemParamValidationError::invalid::<Self>(
                missing_resource_message::<R>(meta, world),
            )),
        }
    }
}

// SAFETY: records a write of the resource.
unsafe impl<R: Resource> SystemParam for ResMut<'_, R> {
    type State = ComponentId;
    type Item<'w, 's> = ResMut<'w, R>;

    fn init_state(world: &mut World, meta: &mut SystemMeta) -> ComponentId {
        let id = world.components.register_resource::<R>();
        resource_access(world, meta, type_name::<Self>(), id, true);
        id
    }

    unsafe fn get_param<'w, 's>(
        id: &'s mut Self::State,
        meta: &SystemMeta,
        world: UnsafeWorldCell<'w>,
        change_tick: Tick,
    ) -> Self::Item<'w, 's> {
        match resource_cells(*id, world) {
            // SAFETY: `id` is `R`'s resource id; write access is recorded.
            Some(cells) => unsafe { make_res_mut(cells, meta, change_tick) },
            None => missing_resource::<R>(meta, world),
        }
    }

    #[inline]
    unsafe fn try_get_param<'w, 's>(
        id: &'s mut Self::State,
        meta: &SystemMeta,
        world: UnsafeWorldCell<'w>,
        change_tick: Tick,
    ) -> Result<Self::Item<'w, 's>, SystemParamValidationError> {
        match resource_cells(*id, world) {
            // SAFETY: `id` is `R`'s resource id; write access is recorded.
            Some(cells) => Ok(unsafe { make_res_mut(cells, meta, change_tick) }),
            None => Err(SystemParamValidationError::invalid::<Self>(
                missing_resource_message::<R>(meta, world),
            )),
        }
    }
}

// ---- Local ------------------------------------------------------------------------

/// A value private to one system, kept between its runs (starts at
/// [`FromWorld::from_world`], which is `Default::default()` for a `Default`
/// type).
///
/// `T` needs `Send`, not `Sync`: the value is kept in a
/// `SyncCell` (a cell that is `Sync` because only `&mut` reaches its
/// value), which only the running system reaches, so a
/// `Local<Cell<u32>>` or a `Local<mpsc::Sender<_>>` works in a system that
/// runs on any thread.
#[derive(Debug)]
pub struct Local<'s, T: FromWorld + Send + 'static>(&'s mut T);

impl<T: FromWorld + Send + 'static> Deref for Local<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.0
    }
}

impl<T: FromWorld + Send + 'static> DerefMut for Local<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        self.0
    }
}

// SAFETY: touches no world data.
unsafe impl<T: FromWorld + Send + 'static> SystemParam for Local<'_, T> {
    type State = SyncCell<T>;
    type Item<'w, 's> = Local<'s, T>;

    fn init_state(world: &mut World, _: &mut SystemMeta) -> SyncCell<T> {
        SyncCell::new(T::from_world(world))
    }

    unsafe fn get_param<'w, 's>(
        state: &'s mut SyncCell<T>,
        _: &SystemMeta,
        _: UnsafeWorldCell<'w>,
        _: Tick,
    ) -> Local<'s, T> {
        Local(state.get())
    }
}

// ---- &World -------------------------------------------------------------------------

// SAFETY: records a read of everything.
unsafe impl SystemParam for &World {
    type State = ();
    type Item<'w, 's> = &'w World;

    fn init_state(world: &mut World, meta: &mut SystemMeta) {
        let mut access = FilteredAccess::default();
        access.access_mut().read_all();
        meta.add_param_access("&World", access, world);
    }

    unsafe fn get_param<'w, 's>(
        _: &'s mut Self::State,
        _: &SystemMeta,
        world: UnsafeWorldCell<'w>,
        _: Tick,
    ) -> Self::Item<'w, 's> {
        // SAFETY: read access to everything is recorded, so no one writes
        // while the system runs.
        unsafe { world.world() }
    }
}

// ---- Commands -------------------------------------------------------------------------

// SAFETY: reads only the entity allocator (reservation is atomic); the
// queue is the system's own state, applied with exclusive access.
unsafe impl SystemParam for Commands<'_, '_> {
    type State = CommandQueue;
    type Item<'w, 's> = Commands<'w, 's>;

    fn init_state(_: &mut World, meta: &mut SystemMeta) -> CommandQueue {
        meta.set_has_deferred();
        CommandQueue::default()
    }

    unsafe fn get_param<'w, 's>(
        queue: &'s mut CommandQueue,
        _: &SystemMeta,
        world: UnsafeWorldCell<'w>,
        _: Tick,
    ) -> Commands<'w, 's> {
        Commands::new_from_entities(queue, world.entities(), world.id())
    }

    fn apply(queue: &mut CommandQueue, world: &mut World) {
        queue.apply(world);
    }

    fn queue(state: &mut CommandQueue, queue: &mut CommandQueue) {
        queue.append(state);
    }
}

// ---- tuples -----------------------------------------------------------------------------

macro_rules! tuple_system_param {
    ($(($name:ident, $s:ident)),*) => {
        // SAFETY: each element records its own access.
        #[allow(non_snake_case, unused_variables, clippy::unused_unit)]
        unsafe impl<$($name: SystemParam),*> SystemParam for ($($name,)*) {
            type State = ($($name::State,)*);
            type Item<'w, 's> = ($($name::Item<'w, 's>,)*);

            fn init_state(world: &mut World, meta: &mut SystemMeta) -> Self::State {
                ($($name::init_state(world, meta),)*)
            }

            #[inline]
            unsafe fn get_param<'w, 's>(state: &'s mut Self::State, meta: &SystemMeta, world: UnsafeWorldCell<'w>, change_tick: Tick) -> Self::Item<'w, 's> {
                let ($($name,)*) = state;
                // SAFETY: forwarded.
                ($(unsafe { $name::get_param($name, meta, world, change_tick) },)*)
            }

            #[inline]
            unsafe fn try_get_param<'w, 's>(state: &'s mut Self::State, meta: &SystemMeta, world: UnsafeWorldCell<'w>, change_tick: Tick) -> Result<Self::Item<'w, 's>, SystemParamValidationError> {
                let ($($name,)*) = state;
                // SAFETY: forwarded.
                Ok(($(unsafe { $name::try_get_param($name, meta, world, change_tick) }?,)*))
            }

            fn apply(state: &mut Self::State, world: &mut World) {
                let ($($name,)*) = state;
                $($name::apply($name, world);)*
            }

            fn queue(state: &mut Self::State, queue: &mut CommandQueue) {
                let ($($name,)*) = state;
                $($name::queue($name, queue);)*
            }
        }
    };
}

crate::utils::all_tuples!(tuple_system_param; (P0, s0), (P1, s1), (P2, s2), (P3, s3), (P4, s4), (P5, s5), (P6, s6), (P7, s7), (P8, s8), (P9, s9), (P10, s10), (P11, s11), (P12, s12), (P13, s13), (P14, s14), (P15, s15));

// ---- read-only parameters ------------------------------------------------------------

/// A [`SystemParam`] that only reads the world: a system whose parameters
/// are all read-only is a [`ReadOnlySystem`](super::ReadOnlySystem).
///
/// Implemented for `Query` of read-only data, `Res`, `Option<Res>`,
/// `Local`, `&World`, tuples of them, and `#[derive(SystemParam)]` structs
/// whose fields all are.
///
/// ```
/// use ecs::prelude::*;
/// use ecs::system::ReadOnlySystemParam;
///
/// #[derive(Component)]
/// struct Health(u32);
///
/// fn read_only<P: ReadOnlySystemParam>() {}
///
/// read_only::<(Query<&Health>, Local<u32>)>();
/// ```
///
/// # Safety
/// `init_state` records no write, and `get_param` only reads the world it
/// is given.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a read-only system parameter",
    label = "writes to the world",
    note = "read-only parameters are `Query` of read-only data, `Res`, `Option<Res>`, `Local`, `&World`, `Commands` and tuples or `#[derive(SystemParam)]` structs of them"
)]
pub unsafe trait ReadOnlySystemParam: SystemParam {}

// SAFETY: the query's data is read-only and filters only read.
unsafe impl<D: crate::query::ReadOnlyQueryData + 'static, F: QueryFilter + 'static>
    ReadOnlySystemParam for Query<'_, '_, D, F>
{
}

// SAFETY: records and takes a read of the resource only.
unsafe impl<R: Resource> ReadOnlySystemParam for Res<'_, R> {}

// SAFETY: touches no world data.
unsafe impl<T: FromWorld + Send + 'static> ReadOnlySystemParam for Local<'_, T> {}

// SAFETY: records a read of everything and hands out a shared reference.
unsafe impl ReadOnlySystemParam for &World {}

// SAFETY: records no access; it only reserves entities (atomically) and
// writes its own queue, which applies later with exclusive access.
unsafe impl ReadOnlySystemParam for Commands<'_, '_> {}

macro_rules! tuple_read_only_system_param {
    ($(($name:ident, $s:ident)),*) => {
        // SAFETY: every element only reads.
        unsafe impl<$($name: ReadOnlySystemParam),*> ReadOnlySystemParam for ($($name,)*) {}
    };
}

crate::utils::all_tuples!(tuple_read_only_system_param; (P0, s0), (P1, s1), (P2, s2), (P3, s3), (P4, s4), (P5, s5), (P6, s6), (P7, s7), (P8, s8), (P9, s9), (P10, s10), (P11, s11), (P12, s12), (P13, s13), (P14, s14), (P15, s15));

/// Runs `build`, which builds parameter state for `world` and may run
/// user code given `&mut World` (`FromWorld`, a builder's closure), and
/// panics, naming `name`, if that code swapped another world in behind
/// the reference: state built partly for one world and stamped with the
/// other's id would read one resource as another.
#[track_caller]
pub(crate) fn build_in_place<R>(
    world: &mut World,
    name: &str,
    build: impl FnOnce(&mut World) -> R,
) -> R {
    let id = world.id();
    let built = build(world);
    if world.id() != id {
        panic!(
            "building the parameters of `{name}` replaced the world it was given (world {id:?} \
             became {:?}): a `FromWorld` impl or parameter builder must not swap the world",
            world.id()
        );
    }
    built
}
