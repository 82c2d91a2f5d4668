use std::{
    any::{type_name, TypeId},
    cell::UnsafeCell,
    mem::ManuallyDrop,
    panic::{catch_unwind, resume_unwind, AssertUnwindSafe},
};

use super::{FromWorld, World};
use crate::{
    change_detection::{ComponentTicks, Mut, MutUntyped, Ref, Tick},
    component::{ComponentId, ComponentInfo},
    ptr::{OwningPtr, Ptr, PtrMut},
    resource::Resource,
};

#[cold]
#[track_caller]
fn missing<R: 'static>(world: &World) -> ! {
    missing_or_scoped::<R>(world.scoped_resources.contains(&TypeId::of::<R>()))
}

#[cold]
#[track_caller]
fn missing_or_scoped<R: 'static>(scoped: bool) -> ! {
    if scoped {
        panic!("{}", taken_by_scope(type_name::<R>()))
    }
    panic!(
        "resource `{}` does not exist in the world: add it with `insert_resource` or `init_resource` first",
        type_name::<R>()
    )
}

/// The message for a resource asked for while `resource_scope` of it holds
/// it.
pub(crate) fn taken_by_scope(resource: &str) -> String {
    format!(
        "resource `{resource}` is taken out of the world by a running `resource_scope` of it: \
         use the value the scope's closure was given"
    )
}

impl World {
    /// Inserts a resource, replacing (and dropping) any old value.
    pub fn insert_resource<R: Resource>(&mut self, value: R) {
        let id = self.components.register_resource::<R>();
        let tick = self.change_tick();
        // SAFETY: `id` was just registered.
        let info = unsafe { self.components.get_info_unchecked(id) };
        let data = self.storages.resources.get_or_insert(info);
        let mut value = ManuallyDrop::new(value);
        // SAFETY: an owned `R` moves into the storage of `R`.
        unsafe { data.insert((&mut *value as *mut R).cast(), tick) };
    }

    /// Inserts `R::from_world(self)` unless the resource exists, in which
    /// case `from_world` is not called. Returns its id.
    ///
    /// Any `R: Default` is [`FromWorld`] through `R::default()`. If
    /// `from_world` panics, nothing is inserted.
    pub fn init_resource<R: Resource + FromWorld>(&mut self) -> ComponentId {
        if !self.contains_resource::<R>() {
            let value = R::from_world(self);
            self.insert_resource(value);
        }
        self.components
            .resource_id::<R>()
            .expect("registered above")
    }

    /// The resource, mutably, made first with `func` if it does not exist.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Resource)]
    /// struct Score(u32);
    ///
    /// let mut world = World::new();
    /// world.get_resource_or_insert_with(|| Score(10)).0 += 1;
    /// world.get_resource_or_insert_with(|| Score(0)).0 += 1;
    /// assert_eq!(world.resource::<Score>().0, 12);
    /// ```
    #[track_caller]
    pub fn get_resource_or_insert_with<R: Resource>(
        &mut self,
        func: impl FnOnce() -> R,
    ) -> Mut<'_, R> {
        if !self.contains_resource::<R>() {
            self.insert_resource(func());
        }
        self.resource_mut::<R>()
    }

    /// The resource, mutably, made first with [`FromWorld`] (or `Default`)
    /// if it does not exist.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Resource, Default)]
    /// struct Frames(u32);
    ///
    /// let mut world = World::new();
    /// world.get_resource_or_init::<Frames>().0 += 1;
    /// world.get_resource_or_init::<Frames>().0 += 1;
    /// assert_eq!(world.resource::<Frames>().0, 2);
    /// ```
    #[track_caller]
    pub fn get_resource_or_init<R: Resource + FromWorld>(&mut self) -> Mut<'_, R> {
        self.init_resource::<R>();
        self.resource_mut::<R>()
    }

    /// Whether the resource exists.
    #[inline]
    pub fn contains_resource<R: Resource>(&self) -> bool {
        self.components
            .resource_id::<R>()
            .and_then(|id| self.storages.resources.get(id))
            .is_some_and(|data| data.is_present())
    }

    /// The resource.
    ///
    /// # Panics
    /// If it does not exist; the message names `R`.
    #[inline]
    #[track_caller]
    pub fn resource<R: Resource>(&self) -> &R {
        match self.get_resource::<R>() {
            Some(r) => r,
            None => missing::<R>(self),
        }
    }

    /// The resource, mutably; writing through it marks it changed.
    ///
    /// # Panics
    /// If it does not exist; the message names `R`.
    #[inline]
    #[track_caller]
    pub fn resource_mut<R: Resource>(&mut self) -> Mut<'_, R> {
        // Read before the borrow that the value returned keeps.
        let scoped = self.scoped_resources.contains(&TypeId::of::<R>());
        match self.get_resource_mut::<R>() {
            Some(r) => r,
            None => missing_or_scoped::<R>(scoped),
        }
    }

    /// The resource with its change ticks.
    ///
    /// # Panics
    /// If it does not exist; the message names `R`.
    #[inline]
    #[track_caller]
    pub fn resource_ref<R: Resource>(&self) -> Ref<'_, R> {
        match self.get_resource_ref::<R>() {
            Some(r) => r,
            None => missing::<R>(self),
        }
    }

    /// The resource, if it exists.
    #[inline]
    pub fn get_resource<R: Resource>(&self) -> Option<&R> {
        let id = self.components.resource_id::<R>()?;
        let ptr = self.storages.resources.get(id)?.get_data()?;
        // SAFETY: the storage of `R`'s id holds an `R`; `&self` keeps it
        // from being written meanwhile.
        Some(unsafe { &*ptr.cast::<R>() })
    }

    /// The resource with its change ticks, if it exists.
    #[inline]
    pub fn get_resource_ref<R: Resource>(&self) -> Option<Ref<'_, R>> {
        let id = self.components.resource_id::<R>()?;
        let (ptr, added, changed) = self.storages.resources.get(id)?.get_with_tick_cells()?;
        // SAFETY: as in `get_resource`; the tick cells are only written
        // through `&mut World`.
        unsafe {
            Some(Ref::new(
                &*ptr.cast::<R>(),
                &*added.get(),
                &*changed.get(),
                self.last_change_tick,
                self.change_tick(),
            ))
        }
    }

    /// The resource, mutably, if it exists.
    #[inline]
    pub fn get_resource_mut<R: Resource>(&mut self) -> Option<Mut<'_, R>> {
        let id = self.components.resource_id::<R>()?;
        let (last_run, this_run) = (self.last_change_tick, self.change_tick());
        let (ptr, added, changed) = self.storages.resources.get(id)?.get_with_tick_cells()?;
        // SAFETY: the storage of `R`'s id holds an `R`; `&mut self` makes
        // the borrow of the value and its ticks exclusive.
        unsafe {
            Some(Mut::new(
                &mut *ptr.cast::<R>(),
                &mut *added.get(),
                &mut *changed.get(),
                last_run,
                this_run,
            ))
        }
    }

    /// Removes the resource and returns it.
    pub fn remove_resource<R: Resource>(&mut self) -> Option<R> {
        self.remove_resource_with_ticks::<R>()
            .map(|(value, _)| value)
    }

    fn remove_resource_with_ticks<R: Resource>(&mut self) -> Option<(R, ComponentTicks)> {
        let id = self.components.resource_id::<R>()?;
        let (ptr, ticks) = self.storages.resources.get_mut(id)?.remove()?;
        // SAFETY: the removed value is an owned `R`, read out once.
        Some((unsafe { ptr.cast::<R>().read() }, ticks))
    }

    /// Takes the resource out, runs `f` with the world and the resource,
    /// and puts it back (also when `f` panics).
    ///
    /// The resource keeps its added tick, and its changed tick moves only
    /// if `f` changes it through the `Mut`. Unlike bevy, which puts it back
    /// as a fresh insert, a scope does not make the resource look added or
    /// changed to systems that run later.
    ///
    /// # Panics
    /// If the resource does not exist, or if `f` inserted another `R`
    /// (that one is dropped; the scoped value is kept).
    #[track_caller]
    pub fn resource_scope<R: Resource, U>(
        &mut self,
        f: impl FnOnce(&mut World, Mut<'_, R>) -> U,
    ) -> U {
        let Some((mut value, ticks)) = self.remove_resource_with_ticks::<R>() else {
            missing::<R>(self)
        };
        let (mut added, mut changed) = (ticks.added, ticks.changed);
        let (last_run, this_run) = (self.last_change_tick, self.change_tick());
        self.scoped_resources.push(TypeId::of::<R>());
        let result = catch_unwind(AssertUnwindSafe(|| {
            let value = Mut::new(&mut value, &mut added, &mut changed, last_run, this_run);
            f(self, value)
        }));
        self.scoped_resources.pop();
        // Held, not dropped, until the scoped value is back: its `Drop` may
        // panic.
        let intruder = self.remove_resource::<R>();
        let id = self.components.resource_id::<R>().expect("registered");
        // SAFETY: `id` is registered.
        let info = unsafe { self.components.get_info_unchecked(id) };
        let data = self.storages.resources.get_or_insert(info);
        let mut value = ManuallyDrop::new(value);
        // SAFETY: the resource is absent (removed above); an owned `R` moves
        // back in.
        unsafe {
            data.insert_with_ticks(
                (&mut *value as *mut R).cast(),
                ComponentTicks { added, changed },
            )
        };
        match (result, intruder) {
            (Err(payload), intruder) => {
                // The closure's panic is the one that goes on.
                let _ = catch_unwind(AssertUnwindSafe(|| drop(intruder)));
                resume_unwind(payload)
            }
            (Ok(_), Some(intruder)) => {
                drop(intruder);
                panic!(
                    "resource `{}` was inserted during `resource_scope` of the same resource; the scoped value was kept",
                    type_name::<R>()
                )
            }
            (Ok(output), None) => output,
        }
    }

    /// Runs [`World::resource_scope`] if the resource exists; `None` (and
    /// `f` not called) if not.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Resource)]
    /// struct Gold(u32);
    ///
    /// let mut world = World::new();
    /// assert_eq!(world.try_resource_scope(|_, gold: Mut<Gold>| gold.0), None);
    /// world.insert_resource(Gold(4));
    /// assert_eq!(world.try_resource_scope(|_, gold: Mut<Gold>| gold.0), Some(4));
    /// ```
    ///
    /// # Panics
    /// If `f` inserted another `R`, as [`World::resource_scope`].
    #[track_caller]
    pub fn try_resource_scope<R: Resource, U>(
        &mut self,
        f: impl FnOnce(&mut World, Mut<'_, R>) -> U,
    ) -> Option<U> {
        if self.contains_resource::<R>() {
            Some(self.resource_scope(f))
        } else {
            None
        }
    }

    /// Whether the resource was added since [`World::last_change_tick`]
    /// (in a system: since the system last ran); `false` if it does not
    /// exist.
    #[inline]
    pub fn is_resource_added<R: Resource>(&self) -> bool {
        self.components
            .resource_id::<R>()
            .is_some_and(|id| self.is_resource_added_by_id(id))
    }

    /// [`World::is_resource_added`] for the resource `component_id`.
    #[inline]
    pub fn is_resource_added_by_id(&self, component_id: ComponentId) -> bool {
        self.resource_ticks_by_id(component_id)
            .is_some_and(|ticks| ticks.is_added(self.last_change_tick, self.change_tick()))
    }

    /// Whether the resource was added or changed since
    /// [`World::last_change_tick`]; `false` if it does not exist.
    #[inline]
    pub fn is_resource_changed<R: Resource>(&self) -> bool {
        self.components
            .resource_id::<R>()
            .is_some_and(|id| self.is_resource_changed_by_id(id))
    }

    /// [`World::is_resource_changed`] for the resource `component_id`.
    #[inline]
    pub fn is_resource_changed_by_id(&self, component_id: ComponentId) -> bool {
        self.resource_ticks_by_id(component_id)
            .is_some_and(|ticks| ticks.is_changed(self.last_change_tick, self.change_tick()))
    }

    /// A pointer to the value of the resource `component_id`, if it exists
    /// (`None` also for an id this world never handed out).
    #[inline]
    pub fn get_resource_by_id(&self, component_id: ComponentId) -> Option<Ptr<'_>> {
        let ptr = self.storages.resources.get(component_id)?.get_data()?;
        // SAFETY: the resource's value, which `&self` keeps from being
        // written; storage never hands out null, even for zero-sized values.
        Some(unsafe { Ptr::new(std::ptr::NonNull::new(ptr)?) })
    }

    /// The value of the resource `component_id`, mutably; writing through
    /// it marks it changed.
    #[inline]
    pub fn get_resource_mut_by_id(&mut self, component_id: ComponentId) -> Option<MutUntyped<'_>> {
        let (last_run, this_run) = (self.last_change_tick, self.change_tick());
        let cells = self
            .storages
            .resources
            .get(component_id)?
            .get_with_tick_cells()?;
        // SAFETY: the resource's value and ticks, borrowed exclusively
        // through `&mut self`.
        unsafe { mut_untyped(cells, last_run, this_run) }
    }

    /// Inserts the value of the resource `component_id` (any registered
    /// component or resource id, such as one of a
    /// [`ComponentDescriptor::new_with_layout`](crate::component::ComponentDescriptor::new_with_layout)
    /// descriptor), replacing (and dropping) any old value.
    ///
    /// Bevy's also takes the caller's location, for change tracking this
    /// crate does not record.
    ///
    /// # Safety
    /// `value` points to a valid value of the component `component_id`,
    /// whose ownership moves into the world.
    ///
    /// # Panics
    /// If `component_id` is not registered in this world.
    #[track_caller]
    pub unsafe fn insert_resource_by_id(
        &mut self,
        component_id: ComponentId,
        value: OwningPtr<'_>,
    ) {
        let tick = self.change_tick();
        let Some(info) = self.components.get_info(component_id) else {
            panic!("insert_resource_by_id: {component_id:?} is not registered in this world");
        };
        let data = self.storages.resources.get_or_insert(info);
        // SAFETY: an owned value of `component_id` (caller) moves into its
        // storage.
        unsafe { data.insert(value.as_ptr(), tick) };
    }

    /// Removes (and drops) the value of the resource `component_id`;
    /// returns whether there was one.
    pub fn remove_resource_by_id(&mut self, component_id: ComponentId) -> bool {
        let drop = self
            .components
            .get_info(component_id)
            .and_then(|i| i.drop_fn());
        let Some((ptr, _)) = self
            .storages
            .resources
            .get_mut(component_id)
            .and_then(|data| data.remove())
        else {
            return false;
        };
        if let Some(drop) = drop {
            // SAFETY: the removed value is owned here, of the component
            // whose drop function this is, and not used again.
            unsafe { drop(ptr) };
        }
        true
    }

    fn resource_ticks_by_id(&self, component_id: ComponentId) -> Option<ComponentTicks> {
        self.storages.resources.get(component_id)?.get_ticks()
    }

    /// Whether the resource `component_id` has a value.
    #[inline]
    pub fn contains_resource_by_id(&self, component_id: ComponentId) -> bool {
        self.storages
            .resources
            .get(component_id)
            .is_some_and(|data| data.is_present())
    }

    /// When the resource `R` was added and last changed; `None` if it does
    /// not exist.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Resource)]
    /// struct Gold(u32);
    ///
    /// let mut world = World::new();
    /// assert!(world.get_resource_change_ticks::<Gold>().is_none());
    /// world.insert_resource(Gold(1));
    /// let ticks = world.get_resource_change_ticks::<Gold>().unwrap();
    /// assert_eq!(ticks.added, ticks.changed);
    /// ```
    #[inline]
    pub fn get_resource_change_ticks<R: Resource>(&self) -> Option<ComponentTicks> {
        self.get_resource_change_ticks_by_id(self.components.resource_id::<R>()?)
    }

    /// [`World::get_resource_change_ticks`] of the resource `component_id`.
    #[inline]
    pub fn get_resource_change_ticks_by_id(
        &self,
        component_id: ComponentId,
    ) -> Option<ComponentTicks> {
        self.resource_ticks_by_id(component_id)
    }

    /// Every resource that has a value: its id, its info and a pointer to
    /// the value.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Resource)]
    /// struct Gold(u32);
    ///
    /// let mut world = World::new();
    /// world.insert_resource(Gold(4));
    /// // Every world also holds its `DefaultQueryFilters`.
    /// assert_eq!(world.iter_resources().count(), 2);
    /// let (_, info, ptr) = world
    ///     .iter_resources()
    ///     .find(|(_, info, _)| info.name().ends_with("Gold"))
    ///     .unwrap();
    /// // SAFETY: the info names `Gold`, so the value is one.
    /// assert_eq!(unsafe { ptr.deref::<Gold>() }.0, 4);
    /// ```
    pub fn iter_resources(&self) -> impl Iterator<Item = (ComponentId, &ComponentInfo, Ptr<'_>)> {
        self.storages.resources.iter().filter_map(|(id, data)| {
            let ptr = std::ptr::NonNull::new(data.get_data()?)?;
            let info = self.components.get_info(id)?;
            // SAFETY: the resource's value, which `&self` keeps from being
            // written.
            Some((id, info, unsafe { Ptr::new(ptr) }))
        })
    }

    /// Every resource's value, mutably, with its id and registration;
    /// writing through one marks that resource changed.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Resource)]
    /// struct Gold(u32);
    ///
    /// let mut world = World::new();
    /// world.insert_resource(Gold(4));
    /// for (_, info, mut value) in world.iter_resources_mut() {
    ///     if info.name().ends_with("Gold") {
    ///         // SAFETY: the info names `Gold`, so the value is one.
    ///         unsafe { value.as_mut().deref_mut::<Gold>() }.0 += 1;
    ///     }
    /// }
    /// assert_eq!(world.resource::<Gold>().0, 5);
    /// ```
    pub fn iter_resources_mut(
        &mut self,
    ) -> impl Iterator<Item = (ComponentId, &ComponentInfo, MutUntyped<'_>)> {
        let (last_run, this_run) = (self.last_change_tick, self.change_tick());
        let components = &self.components;
        self.storages
            .resources
            .iter()
            .filter_map(move |(id, data)| {
                let info = components.get_info(id)?;
                // SAFETY: each resource's value and ticks, each yielded once,
                // borrowed exclusively through `&mut self` for the iterator's
                // life.
                let value = unsafe { mut_untyped(data.get_with_tick_cells()?, last_run, this_run) };
                Some((id, info, value?))
            })
    }

    /// Runs `f` on the resource `R` and returns what it returns, or
    /// `Ok(None)` if there is no `R`. The resource is marked changed (`f`
    /// is handed `&mut R`), as in bevy.
    ///
    /// Resources here have no hooks, so this is
    /// [`get_resource_mut`](World::get_resource_mut) and a call; it has
    /// bevy's signature, where a resource can be immutable and this is how
    /// it changes. It never returns `Err`.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Resource)]
    /// struct Gold(u32);
    ///
    /// let mut world = World::new();
    /// world.insert_resource(Gold(4));
    /// assert_eq!(world.modify_resource(|gold: &mut Gold| { gold.0 += 1; gold.0 }), Ok(Some(5)));
    /// world.remove_resource::<Gold>();
    /// assert_eq!(world.modify_resource(|gold: &mut Gold| gold.0), Ok(None));
    /// ```
    #[inline]
    #[track_caller]
    pub fn modify_resource<R: Resource, S>(
        &mut self,
        f: impl FnOnce(&mut R) -> S,
    ) -> Result<Option<S>, super::error::EntityMutableFetchError> {
        Ok(self.get_resource_mut::<R>().map(|mut r| f(&mut r)))
    }

    /// [`World::modify_resource`] by component id, through an untyped
    /// handle (which marks the resource changed when written through):
    /// `Ok(None)` if the resource has no value.
    #[inline]
    #[track_caller]
    pub fn modify_resource_by_id<S>(
        &mut self,
        component_id: ComponentId,
        f: impl for<'a> FnOnce(MutUntyped<'a>) -> S,
    ) -> Result<Option<S>, super::error::EntityMutableFetchError> {
        Ok(self.get_resource_mut_by_id(component_id).map(f))
    }

    /// The world's error handler: the one its
    /// [`FallbackErrorHandler`](crate::error::FallbackErrorHandler)
    /// resource holds, else [`match_severity`](crate::error::match_severity).
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use ecs::error::{BevyError, ErrorContext, FallbackErrorHandler};
    /// use std::sync::atomic::{AtomicBool, Ordering};
    ///
    /// static CALLED: AtomicBool = AtomicBool::new(false);
    /// fn note(_: BevyError, _: ErrorContext) {
    ///     CALLED.store(true, Ordering::Relaxed);
    /// }
    ///
    /// let mut world = World::new();
    /// world.insert_resource(FallbackErrorHandler(note));
    /// let context = ErrorContext::Command { name: "example".into() };
    /// (world.fallback_error_handler())("failed".into(), context);
    /// assert!(CALLED.load(Ordering::Relaxed));
    /// ```
    #[inline]
    pub fn fallback_error_handler(&self) -> crate::error::ErrorHandler {
        self.get_resource::<crate::error::FallbackErrorHandler>()
            .copied()
            .unwrap_or_default()
            .0
    }

    // ---- non-send resources ----------------------------------------------------

    /// Inserts a non-send resource: any `'static` value, `Send` or not,
    /// replacing (and dropping) an old one. It belongs to this thread:
    /// reading, writing or removing it from another thread panics, and
    /// systems using it ([`NonSend`](crate::system::NonSend)) run on the
    /// thread that runs the schedule.
    ///
    /// ```
    /// use ecs::prelude::*;
    /// use std::rc::Rc;
    ///
    /// let mut world = World::new();
    /// world.insert_non_send(Rc::new(5));
    /// assert_eq!(**world.non_send::<Rc<i32>>(), 5);
    /// ```
    ///
    /// # Panics
    /// If an old value belongs to another thread, naming the type and both
    /// threads (`value` is dropped).
    #[track_caller]
    pub fn insert_non_send<R: 'static>(&mut self, value: R) {
        let id = self.components.register_non_send::<R>();
        let tick = self.change_tick();
        // SAFETY: `id` was just registered.
        let info = unsafe { self.components.get_info_unchecked(id) };
        let data = self.storages.non_sends.get_or_insert(info);
        data.validate_insert();
        let mut value = ManuallyDrop::new(value);
        // SAFETY: an owned `R` moves into the storage of `R`, whose old
        // value (if any) belongs to this thread (checked above).
        unsafe { data.insert((&mut *value as *mut R).cast(), tick) };
    }

    /// Inserts `R::from_world(self)` as a non-send resource unless one
    /// exists. Returns its id.
    #[track_caller]
    pub fn init_non_send<R: 'static + FromWorld>(&mut self) -> ComponentId {
        if !self.contains_non_send::<R>() {
            let value = R::from_world(self);
            self.insert_non_send(value);
        }
        self.components.register_non_send::<R>()
    }

    /// Removes the non-send resource and returns it.
    ///
    /// # Panics
    /// If it belongs to another thread, naming the type and both threads.
    #[track_caller]
    pub fn remove_non_send<R: 'static>(&mut self) -> Option<R> {
        let id = self.components.get_resource_id(TypeId::of::<R>())?;
        let (ptr, _) = self.storages.non_sends.get_mut(id)?.remove()?;
        // SAFETY: the removed value is an owned `R`, read out once.
        Some(unsafe { ptr.cast::<R>().read() })
    }

    /// Whether the non-send resource exists (on any thread).
    #[inline]
    pub fn contains_non_send<R: 'static>(&self) -> bool {
        self.components
            .get_resource_id(TypeId::of::<R>())
            .and_then(|id| self.storages.non_sends.get(id))
            .is_some_and(|data| data.is_present())
    }

    /// The non-send resource.
    ///
    /// # Panics
    /// If it does not exist, or belongs to another thread; the message
    /// names `R`.
    #[inline]
    #[track_caller]
    pub fn non_send<R: 'static>(&self) -> &R {
        match self.get_non_send::<R>() {
            Some(r) => r,
            None => missing_non_send::<R>(),
        }
    }

    /// The non-send resource, mutably; writing through it marks it changed.
    ///
    /// # Panics
    /// As [`World::non_send`].
    #[inline]
    #[track_caller]
    pub fn non_send_mut<R: 'static>(&mut self) -> Mut<'_, R> {
        match self.get_non_send_mut::<R>() {
            Some(r) => r,
            None => missing_non_send::<R>(),
        }
    }

    /// The non-send resource, if it exists.
    ///
    /// # Panics
    /// If it exists and belongs to another thread.
    #[inline]
    #[track_caller]
    pub fn get_non_send<R: 'static>(&self) -> Option<&R> {
        let id = self.components.get_resource_id(TypeId::of::<R>())?;
        let ptr = self.storages.non_sends.get(id)?.get_data()?;
        // SAFETY: the storage of `R`'s id holds an `R` of this thread;
        // `&self` keeps it from being written meanwhile.
        Some(unsafe { &*ptr.cast::<R>() })
    }

    /// The non-send resource, mutably, if it exists.
    ///
    /// # Panics
    /// If it exists and belongs to another thread.
    #[inline]
    #[track_caller]
    pub fn get_non_send_mut<R: 'static>(&mut self) -> Option<Mut<'_, R>> {
        let id = self.components.get_resource_id(TypeId::of::<R>())?;
        let (last_run, this_run) = (self.last_change_tick, self.change_tick());
        let (ptr, added, changed) = self.storages.non_sends.get(id)?.get_with_tick_cells()?;
        // SAFETY: the storage of `R`'s id holds an `R` of this thread;
        // `&mut self` makes the borrow of the value and its ticks exclusive.
        unsafe {
            Some(Mut::new(
                &mut *ptr.cast::<R>(),
                &mut *added.get(),
                &mut *changed.get(),
                last_run,
                this_run,
            ))
        }
    }
}

impl World {
    /// Whether the non-send resource `component_id` has a value (on any
    /// thread).
    #[inline]
    pub fn contains_non_send_by_id(&self, component_id: ComponentId) -> bool {
        self.storages
            .non_sends
            .get(component_id)
            .is_some_and(|data| data.is_present())
    }

    /// A pointer to the value of the non-send resource `component_id`.
    ///
    /// # Panics
    /// If it exists and belongs to another thread, naming it and both
    /// threads.
    #[inline]
    #[track_caller]
    pub fn get_non_send_by_id(&self, component_id: ComponentId) -> Option<Ptr<'_>> {
        let ptr = self.storages.non_sends.get(component_id)?.get_data()?;
        // SAFETY: the value of this thread (checked by `get_data`), which
        // `&self` keeps from being written; storage never hands out null.
        Some(unsafe { Ptr::new(std::ptr::NonNull::new(ptr)?) })
    }

    /// The value of the non-send resource `component_id`, mutably; writing
    /// through it marks it changed.
    ///
    /// # Panics
    /// As [`World::get_non_send_by_id`].
    #[inline]
    #[track_caller]
    pub fn get_non_send_mut_by_id(&mut self, component_id: ComponentId) -> Option<MutUntyped<'_>> {
        let (last_run, this_run) = (self.last_change_tick, self.change_tick());
        let cells = self
            .storages
            .non_sends
            .get(component_id)?
            .get_with_tick_cells()?;
        // SAFETY: the value of this thread (checked by
        // `get_with_tick_cells`) and its ticks, borrowed exclusively through
        // `&mut self`.
        unsafe { mut_untyped(cells, last_run, this_run) }
    }

    /// Removes (and drops) the value of the non-send resource
    /// `component_id`: `Some(())` if there was one.
    ///
    /// # Panics
    /// As [`World::get_non_send_by_id`], before anything is removed.
    #[track_caller]
    pub fn remove_non_send_by_id(&mut self, component_id: ComponentId) -> Option<()> {
        let drop = self
            .components
            .get_info(component_id)
            .and_then(|info| info.drop_fn());
        let (ptr, _) = self.storages.non_sends.get_mut(component_id)?.remove()?;
        if let Some(drop) = drop {
            // SAFETY: the removed value is owned here, of the component
            // whose drop function this is, and not used again.
            unsafe { drop(ptr) };
        }
        Some(())
    }

    /// Inserts the value of the non-send resource `component_id` (an id
    /// from [`World::init_non_send`] or the registry), on this thread,
    /// replacing (and dropping) an old value.
    ///
    /// # Safety
    /// `value` points to a valid value of the type `component_id` was
    /// registered for, whose ownership moves into the world.
    ///
    /// # Panics
    /// If `component_id` is not registered in this world, or an old value
    /// belongs to another thread; `value` is then not dropped (nor kept).
    #[track_caller]
    pub unsafe fn insert_non_send_by_id(
        &mut self,
        component_id: ComponentId,
        value: OwningPtr<'_>,
    ) {
        let tick = self.change_tick();
        let Some(info) = self.components.get_info(component_id) else {
            panic!("insert_non_send_by_id: {component_id:?} is not registered in this world");
        };
        let data = self.storages.non_sends.get_or_insert(info);
        data.validate_insert();
        // SAFETY: an owned value of `component_id` (caller) moves into its
        // storage, whose old value (if any) belongs to this thread.
        unsafe { data.insert(value.as_ptr(), tick) };
    }
}

/// An untyped mutable handle on a stored value and its tick cells; `None`
/// for a null pointer (which storage never hands out).
///
/// # Safety
/// The pointer and cells are a stored value's and its ticks, borrowed
/// exclusively by the caller for `'a`.
unsafe fn mut_untyped<'a>(
    (ptr, added, changed): (*mut u8, &'a UnsafeCell<Tick>, &'a UnsafeCell<Tick>),
    last_run: Tick,
    this_run: Tick,
) -> Option<MutUntyped<'a>> {
    let ptr = std::ptr::NonNull::new(ptr)?;
    // SAFETY: exclusive for `'a` (caller).
    unsafe {
        Some(MutUntyped::new(
            PtrMut::new(ptr),
            &mut *added.get(),
            &mut *changed.get(),
            last_run,
            this_run,
        ))
    }
}

#[cold]
#[track_caller]
fn missing_non_send<R: 'static>() -> ! {
    panic!(
        "non-send resource `{}` does not exist in the world: add it with `insert_non_send` or \
         `init_non_send` first",
        type_name::<R>()
    )
}
