//! [`FilteredResources`] and [`FilteredResourcesMut`]: system parameters
//! reaching the resources chosen when the system is built, by type or by
//! id, with the access recorded as `Res`/`ResMut` record theirs.

use std::{any::type_name, borrow::Cow, fmt, sync::LazyLock};

use super::{ReadOnlySystemParam, SystemMeta, SystemParam, SystemParamBuilder};
use crate::{
    change_detection::{Mut, MutUntyped, Ref, Tick},
    component::ComponentId,
    ptr::{Ptr, PtrMut},
    query::{Access, FilteredAccess},
    resource::Resource,
    world::{UnsafeWorldCell, World},
};

/// A resource could not be fetched through a [`FilteredResources`] or
/// [`FilteredResourcesMut`].
///
/// Unlike bevy's, each variant carries the resource's name (and
/// `NoResourceAccess` the access missing), so the message says which
/// resource and what to declare.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResourceFetchError {
    /// The resource type was never registered with the world.
    NotRegistered {
        /// The resource's type name.
        name: &'static str,
    },
    /// The resource is registered but not in the world now.
    DoesNotExist {
        /// The resource's id.
        id: ComponentId,
        /// The resource's name.
        name: Cow<'static, str>,
    },
    /// The parameter was not built with this access to the resource.
    NoResourceAccess {
        /// The resource's id.
        id: ComponentId,
        /// The resource's name.
        name: Cow<'static, str>,
        /// Whether write access was missing (otherwise read access).
        write: bool,
    },
}

impl fmt::Display for ResourceFetchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ResourceFetchError::NotRegistered { name } => write!(
                f,
                "resource `{name}` was never registered with the world: insert or init it first"
            ),
            ResourceFetchError::DoesNotExist { id, name } => {
                write!(f, "resource `{name}` ({id:?}) is not in the world")
            }
            ResourceFetchError::NoResourceAccess { id, name, write } => {
                let (kind, add) = if *write {
                    ("write", "add_write")
                } else {
                    ("read", "add_read")
                };
                write!(
                    f,
                    "no {kind} access to resource `{name}` ({id:?}) was declared: add `{add}::<{name}>()` to the parameter's builder"
                )
            }
        }
    }
}

impl std::error::Error for ResourceFetchError {}

#[cold]
fn resource_name(world: UnsafeWorldCell<'_>, id: ComponentId) -> Cow<'static, str> {
    match world.components().get_name(id) {
        Some(name) => Cow::Owned(name.to_owned()),
        None => Cow::Owned(format!("{id:?}")),
    }
}

/// The registered id of the resource `R`.
fn typed_id<R: Resource>(world: UnsafeWorldCell<'_>) -> Result<ComponentId, ResourceFetchError> {
    world
        .components()
        .resource_id::<R>()
        .ok_or(ResourceFetchError::NotRegistered {
            name: type_name::<R>(),
        })
}

type Cells<'w> = (
    *mut u8,
    &'w std::cell::UnsafeCell<Tick>,
    &'w std::cell::UnsafeCell<Tick>,
);

/// The value and tick cells of resource `id`, if `access` allows it
/// (`write` asks for write access) and it is in the world.
fn checked_cells<'w>(
    world: UnsafeWorldCell<'w>,
    access: &Access,
    id: ComponentId,
    write: bool,
) -> Result<Cells<'w>, ResourceFetchError> {
    let allowed = if write {
        access.has_write(id)
    } else {
        access.has_read(id)
    };
    if !allowed {
        return Err(ResourceFetchError::NoResourceAccess {
            id,
            name: resource_name(world, id),
            write,
        });
    }
    // SAFETY: only `id`'s cells are taken, and the access allows them;
    // non-send values live in another store, so none is reached here.
    let data = unsafe { world.storages() }.resources.get(id);
    data.and_then(|data| data.get_with_tick_cells())
        .ok_or_else(|| ResourceFetchError::DoesNotExist {
            id,
            name: resource_name(world, id),
        })
}

/// Read access to the resources chosen when the system is built
/// ([`FilteredResourcesParamBuilder`]): `get::<R>()` for one of them,
/// [`ResourceFetchError`] for any other.
///
/// ```
/// use ecs::prelude::*;
/// use ecs::system::FilteredResourcesParamBuilder;
///
/// #[derive(Resource)]
/// struct Gravity(f32);
/// #[derive(Resource, Debug)]
/// struct Secret(u32);
///
/// let mut world = World::new();
/// world.insert_resource(Gravity(9.8));
/// world.insert_resource(Secret(7));
/// let system = (FilteredResourcesParamBuilder::new(|builder| {
///     builder.add_read::<Gravity>();
/// }),)
///     .build_state(&mut world)
///     .build_system(|resources: FilteredResources| {
///         assert_eq!(resources.get::<Gravity>().unwrap().0, 9.8);
///         // Declared by no one: an error naming `Secret`, never a read.
///         let error = resources.get::<Secret>().unwrap_err();
///         assert!(error.to_string().contains("Secret"));
///     });
/// world.run_system_once(system).unwrap();
/// ```
///
/// Built without a builder ([`ParamBuilder`](super::ParamBuilder) or as a
/// plain parameter), it may read nothing.
///
/// Bevy deprecates it for queries over resource entities; our resources
/// are not entities, so it stays the way to reach resources chosen at run
/// time. `add_read_all` records a read of every resource: it conflicts
/// with resource writers and whole-world access, never with entity
/// queries (as in bevy, where its access is filtered to resource
/// entities).
#[derive(Clone, Copy)]
pub struct FilteredResources<'w, 's> {
    world: UnsafeWorldCell<'w>,
    access: &'s Access,
    last_run: Tick,
    this_run: Tick,
}

impl<'w, 's> FilteredResources<'w, 's> {
    /// # Safety
    /// Nothing else reads or writes, for `'w`, a resource `access` writes,
    /// or writes one it reads.
    pub(crate) unsafe fn new(
        world: UnsafeWorldCell<'w>,
        access: &'s Access,
        last_run: Tick,
        this_run: Tick,
    ) -> Self {
        FilteredResources {
            world,
            access,
            last_run,
            this_run,
        }
    }

    /// What this parameter may read.
    pub fn access(&self) -> &Access {
        self.access
    }

    /// Whether `R` may be read (it may still be missing from the world).
    pub fn has_read<R: Resource>(&self) -> bool {
        typed_id::<R>(self.world).is_ok_and(|id| self.access.has_read(id))
    }

    /// The resource `R`, with its change ticks.
    ///
    /// # Errors
    /// If `R` is not registered, was not declared, or is not in the world.
    pub fn get<R: Resource>(&self) -> Result<Ref<'w, R>, ResourceFetchError> {
        let id = typed_id::<R>(self.world)?;
        let (ptr, added, changed) = checked_cells(self.world, self.access, id, false)?;
        // SAFETY: `id` is `R`'s resource id, so the cells hold an `R`; the
        // access to read it is held (see `new`), so nothing writes it.
        unsafe {
            Ok(Ref::new(
                &*ptr.cast::<R>(),
                &*added.get(),
                &*changed.get(),
                self.last_run,
                self.this_run,
            ))
        }
    }

    /// The resource of id `id`.
    ///
    /// # Errors
    /// If it was not declared or is not in the world.
    pub fn get_by_id(&self, id: ComponentId) -> Result<Ptr<'w>, ResourceFetchError> {
        let (ptr, _, _) = checked_cells(self.world, self.access, id, false)?;
        // SAFETY: a stored resource's pointer is never null, and the access
        // to read it is held (see `new`).
        Ok(unsafe { Ptr::new(std::ptr::NonNull::new_unchecked(ptr)) })
    }
}

impl<'w, 's> From<FilteredResourcesMut<'w, 's>> for FilteredResources<'w, 's> {
    fn from(resources: FilteredResourcesMut<'w, 's>) -> Self {
        // SAFETY: the mutable handle is consumed, and its access covers
        // this one's.
        unsafe {
            FilteredResources::new(
                resources.world,
                resources.access,
                resources.last_run,
                resources.this_run,
            )
        }
    }
}

impl<'w, 's> From<&'w FilteredResourcesMut<'_, 's>> for FilteredResources<'w, 's> {
    fn from(resources: &'w FilteredResourcesMut<'_, 's>) -> Self {
        // SAFETY: the shared borrow keeps the mutable handle from writing
        // for `'w`, and its access covers this one's.
        unsafe {
            FilteredResources::new(
                resources.world,
                resources.access,
                resources.last_run,
                resources.this_run,
            )
        }
    }
}

static READ_ALL: LazyLock<Access> = LazyLock::new(|| {
    let mut access = Access::default();
    access.read_all();
    access
});

static WRITE_ALL: LazyLock<Access> = LazyLock::new(|| {
    let mut access = Access::default();
    access.write_all();
    access
});

impl<'w> From<&'w World> for FilteredResources<'w, 'static> {
    fn from(world: &'w World) -> Self {
        // SAFETY: `&World` lets everyone read, and nothing writes meanwhile.
        unsafe {
            FilteredResources::new(
                UnsafeWorldCell::new_readonly(world),
                &READ_ALL,
                world.last_change_tick(),
                world.change_tick(),
            )
        }
    }
}

impl<'w> From<&'w mut World> for FilteredResources<'w, 'static> {
    fn from(world: &'w mut World) -> Self {
        FilteredResources::from(&*world)
    }
}

/// Read and write access to the resources chosen when the system is built
/// ([`FilteredResourcesMutParamBuilder`]).
///
/// ```
/// use ecs::prelude::*;
/// use ecs::system::FilteredResourcesMutParamBuilder;
///
/// #[derive(Resource)]
/// struct Score(u32);
/// #[derive(Resource)]
/// struct Bonus(u32);
///
/// let mut world = World::new();
/// world.insert_resource(Score(1));
/// world.insert_resource(Bonus(10));
/// let system = (FilteredResourcesMutParamBuilder::new(|builder| {
///     builder.add_write::<Score>().add_read::<Bonus>();
/// }),)
///     .build_state(&mut world)
///     .build_system(|mut resources: FilteredResourcesMut| {
///         let bonus = resources.get::<Bonus>().unwrap().0;
///         resources.get_mut::<Score>().unwrap().0 += bonus;
///         // Read but not written: an error naming `Bonus`.
///         assert!(resources.get_mut::<Bonus>().is_err());
///     });
/// world.run_system_once(system).unwrap();
/// assert_eq!(world.resource::<Score>().0, 11);
/// ```
///
/// Bevy deprecates it for queries over resource entities; our resources
/// are not entities, so it stays the way to reach resources chosen at run
/// time.
pub struct FilteredResourcesMut<'w, 's> {
    world: UnsafeWorldCell<'w>,
    access: &'s Access,
    last_run: Tick,
    this_run: Tick,
}

impl<'w, 's> FilteredResourcesMut<'w, 's> {
    /// # Safety
    /// Nothing else reads or writes, for `'w`, a resource `access` writes,
    /// or writes one it reads.
    pub(crate) unsafe fn new(
        world: UnsafeWorldCell<'w>,
        access: &'s Access,
        last_run: Tick,
        this_run: Tick,
    ) -> Self {
        FilteredResourcesMut {
            world,
            access,
            last_run,
            this_run,
        }
    }

    /// Read access to the same resources, for as long as it is borrowed.
    pub fn as_readonly(&self) -> FilteredResources<'_, 's> {
        FilteredResources::from(self)
    }

    /// The same access, for a shorter time.
    pub fn reborrow(&mut self) -> FilteredResourcesMut<'_, 's> {
        // SAFETY: `&mut self` keeps this handle unused while the new one
        // lives.
        unsafe { FilteredResourcesMut::new(self.world, self.access, self.last_run, self.this_run) }
    }

    /// What this parameter may read and write.
    pub fn access(&self) -> &Access {
        self.access
    }

    /// Whether `R` may be read (it may still be missing from the world).
    pub fn has_read<R: Resource>(&self) -> bool {
        typed_id::<R>(self.world).is_ok_and(|id| self.access.has_read(id))
    }

    /// Whether `R` may be written (it may still be missing from the world).
    pub fn has_write<R: Resource>(&self) -> bool {
        typed_id::<R>(self.world).is_ok_and(|id| self.access.has_write(id))
    }

    /// The resource `R`, read-only.
    ///
    /// # Errors
    /// As [`FilteredResources::get`].
    pub fn get<R: Resource>(&self) -> Result<Ref<'_, R>, ResourceFetchError> {
        self.as_readonly().get()
    }

    /// The resource of id `id`, read-only.
    ///
    /// # Errors
    /// As [`FilteredResources::get_by_id`].
    pub fn get_by_id(&self, id: ComponentId) -> Result<Ptr<'_>, ResourceFetchError> {
        self.as_readonly().get_by_id(id)
    }

    /// The resource `R`, mutably; writing marks it changed.
    ///
    /// # Errors
    /// If `R` is not registered, was not declared written, or is not in
    /// the world.
    pub fn get_mut<R: Resource>(&mut self) -> Result<Mut<'_, R>, ResourceFetchError> {
        // SAFETY: `&mut self` keeps every other borrow through this handle
        // away for the returned lifetime.
        unsafe { self.get_mut_unchecked() }
    }

    /// The resource of id `id`, mutably; writing marks it changed.
    ///
    /// # Errors
    /// If it was not declared written or is not in the world.
    pub fn get_mut_by_id(&mut self, id: ComponentId) -> Result<MutUntyped<'_>, ResourceFetchError> {
        // SAFETY: as in `get_mut`.
        unsafe { self.get_mut_by_id_unchecked(id) }
    }

    /// The resource `R`, mutably, for the handle's whole lifetime.
    ///
    /// # Errors
    /// As [`get_mut`](Self::get_mut).
    pub fn into_mut<R: Resource>(mut self) -> Result<Mut<'w, R>, ResourceFetchError> {
        // SAFETY: the handle is consumed, so nothing else borrows through it.
        unsafe { self.get_mut_unchecked() }
    }

    /// The resource of id `id`, mutably, for the handle's whole lifetime.
    ///
    /// # Errors
    /// As [`get_mut_by_id`](Self::get_mut_by_id).
    pub fn into_mut_by_id(mut self, id: ComponentId) -> Result<MutUntyped<'w>, ResourceFetchError> {
        // SAFETY: the handle is consumed, so nothing else borrows through it.
        unsafe { self.get_mut_by_id_unchecked(id) }
    }

    /// # Safety
    /// No other borrow made through this handle is alive while the result
    /// is.
    unsafe fn get_mut_unchecked<R: Resource>(&mut self) -> Result<Mut<'w, R>, ResourceFetchError> {
        let id = typed_id::<R>(self.world)?;
        let (ptr, added, changed) = checked_cells(self.world, self.access, id, true)?;
        // SAFETY: `id` is `R`'s resource id, so the cells hold an `R`; the
        // write access is held (see `new`), and the caller rules out other
        // borrows through this handle.
        unsafe {
            Ok(Mut::new(
                &mut *ptr.cast::<R>(),
                &mut *added.get(),
                &mut *changed.get(),
                self.last_run,
                self.this_run,
            ))
        }
    }

    /// # Safety
    /// As `get_mut_unchecked`.
    unsafe fn get_mut_by_id_unchecked(
        &mut self,
        id: ComponentId,
    ) -> Result<MutUntyped<'w>, ResourceFetchError> {
        let (ptr, added, changed) = checked_cells(self.world, self.access, id, true)?;
        // SAFETY: a stored resource's pointer is never null; the write
        // access is held (see `new`), and the caller rules out other
        // borrows through this handle.
        unsafe {
            Ok(MutUntyped::new(
                PtrMut::new(std::ptr::NonNull::new_unchecked(ptr)),
                &mut *added.get(),
                &mut *changed.get(),
                self.last_run,
                self.this_run,
            ))
        }
    }
}

impl<'w> From<&'w mut World> for FilteredResourcesMut<'w, 'static> {
    fn from(world: &'w mut World) -> Self {
        let (last_run, this_run) = (world.last_change_tick(), world.change_tick());
        // SAFETY: `&mut World` holds every access for `'w`.
        unsafe {
            FilteredResourcesMut::new(
                UnsafeWorldCell::new_mutable(world),
                &WRITE_ALL,
                last_run,
                this_run,
            )
        }
    }
}

// ---- as system parameters ------------------------------------------------------------

/// Records `access` (resource ids) as one parameter's.
#[track_caller]
fn record(world: &World, meta: &mut SystemMeta, param: &str, access: &Access) {
    meta.add_param_access(param, FilteredAccess::resources(access.clone()), world);
}

// SAFETY: the state is the access, recorded by the builders; the default
// state is empty, and `get_param` reaches only resources it allows.
unsafe impl SystemParam for FilteredResources<'_, '_> {
    type State = Access;
    type Item<'w, 's> = FilteredResources<'w, 's>;

    fn init_state(_: &mut World, _: &mut SystemMeta) -> Access {
        Access::default()
    }

    unsafe fn get_param<'w, 's>(
        access: &'s mut Access,
        meta: &SystemMeta,
        world: UnsafeWorldCell<'w>,
        change_tick: Tick,
    ) -> FilteredResources<'w, 's> {
        // SAFETY: the caller holds the recorded access, which is `access`.
        unsafe { FilteredResources::new(world, access, meta.last_run(), change_tick) }
    }
}

// SAFETY: its builders record reads only, and it only reads.
unsafe impl ReadOnlySystemParam for FilteredResources<'_, '_> {}

// SAFETY: as for `FilteredResources`.
unsafe impl SystemParam for FilteredResourcesMut<'_, '_> {
    type State = Access;
    type Item<'w, 's> = FilteredResourcesMut<'w, 's>;

    fn init_state(_: &mut World, _: &mut SystemMeta) -> Access {
        Access::default()
    }

    unsafe fn get_param<'w, 's>(
        access: &'s mut Access,
        meta: &SystemMeta,
        world: UnsafeWorldCell<'w>,
        change_tick: Tick,
    ) -> FilteredResourcesMut<'w, 's> {
        // SAFETY: the caller holds the recorded access, which is `access`.
        unsafe { FilteredResourcesMut::new(world, access, meta.last_run(), change_tick) }
    }
}

/// Declares what a [`FilteredResources`] may read; a
/// [`FilteredResourcesParamBuilder`]'s closure is given one.
pub struct FilteredResourcesBuilder<'w> {
    world: &'w mut World,
    access: Access,
}

impl<'w> FilteredResourcesBuilder<'w> {
    /// A builder declaring nothing.
    pub fn new(world: &'w mut World) -> Self {
        FilteredResourcesBuilder {
            world,
            access: Access::default(),
        }
    }

    /// What is declared so far.
    pub fn access(&self) -> &Access {
        &self.access
    }

    /// Declares a read of every resource (it conflicts with resource
    /// writers and whole-world access, not with entity queries).
    pub fn add_read_all(&mut self) -> &mut Self {
        self.access.read_all();
        self
    }

    /// Declares a read of `R` (registering it).
    pub fn add_read<R: Resource>(&mut self) -> &mut Self {
        let id = self.world.components.register_resource::<R>();
        self.add_read_by_id(id)
    }

    /// Declares a read of the resource of id `id`.
    pub fn add_read_by_id(&mut self, id: ComponentId) -> &mut Self {
        self.access.add_read(id);
        self
    }

    /// The declared access.
    pub fn build(self) -> Access {
        self.access
    }
}

/// Declares what a [`FilteredResourcesMut`] may read and write; a
/// [`FilteredResourcesMutParamBuilder`]'s closure is given one.
pub struct FilteredResourcesMutBuilder<'w> {
    world: &'w mut World,
    access: Access,
}

impl<'w> FilteredResourcesMutBuilder<'w> {
    /// A builder declaring nothing.
    pub fn new(world: &'w mut World) -> Self {
        FilteredResourcesMutBuilder {
            world,
            access: Access::default(),
        }
    }

    /// What is declared so far.
    pub fn access(&self) -> &Access {
        &self.access
    }

    /// Declares a read of every resource (it conflicts with resource
    /// writers and whole-world access, not with entity queries).
    pub fn add_read_all(&mut self) -> &mut Self {
        self.access.read_all();
        self
    }

    /// Declares a read of `R` (registering it).
    pub fn add_read<R: Resource>(&mut self) -> &mut Self {
        let id = self.world.components.register_resource::<R>();
        self.add_read_by_id(id)
    }

    /// Declares a read of the resource of id `id`.
    pub fn add_read_by_id(&mut self, id: ComponentId) -> &mut Self {
        self.access.add_read(id);
        self
    }

    /// Declares a write of every resource (it conflicts with every other
    /// resource access and whole-world access, not with entity queries).
    pub fn add_write_all(&mut self) -> &mut Self {
        self.access.write_all();
        self
    }

    /// Declares a write of `R` (registering it).
    pub fn add_write<R: Resource>(&mut self) -> &mut Self {
        let id = self.world.components.register_resource::<R>();
        self.add_write_by_id(id)
    }

    /// Declares a write of the resource of id `id`.
    pub fn add_write_by_id(&mut self, id: ComponentId) -> &mut Self {
        self.access.add_write(id);
        self
    }

    /// The declared access.
    pub fn build(self) -> Access {
        self.access
    }
}

/// Builds a [`FilteredResources`] from what a closure declares on a
/// [`FilteredResourcesBuilder`].
#[derive(Clone)]
pub struct FilteredResourcesParamBuilder<T>(T);

impl<T> FilteredResourcesParamBuilder<T> {
    /// A builder whose resources `f` declares.
    pub fn new(f: T) -> Self
    where
        T: FnOnce(&mut FilteredResourcesBuilder),
    {
        FilteredResourcesParamBuilder(f)
    }
}

impl<'a> FilteredResourcesParamBuilder<Box<dyn FnOnce(&mut FilteredResourcesBuilder) + 'a>> {
    /// As [`new`](FilteredResourcesParamBuilder::new), with the closure
    /// boxed so that builders of different closures have one type.
    pub fn new_box(f: impl FnOnce(&mut FilteredResourcesBuilder) + 'a) -> Self {
        FilteredResourcesParamBuilder(Box::new(f))
    }
}

// SAFETY: any access is a valid state, and it is recorded.
unsafe impl<'w, 's, T: FnOnce(&mut FilteredResourcesBuilder)>
    SystemParamBuilder<FilteredResources<'w, 's>> for FilteredResourcesParamBuilder<T>
{
    #[track_caller]
    fn build(self, world: &mut World, meta: &mut SystemMeta) -> Access {
        let mut builder = FilteredResourcesBuilder::new(world);
        (self.0)(&mut builder);
        let access = builder.build();
        record(world, meta, "FilteredResources", &access);
        access
    }
}

/// Builds a [`FilteredResourcesMut`] from what a closure declares on a
/// [`FilteredResourcesMutBuilder`].
#[derive(Clone)]
pub struct FilteredResourcesMutParamBuilder<T>(T);

impl<T> FilteredResourcesMutParamBuilder<T> {
    /// A builder whose resources `f` declares.
    pub fn new(f: T) -> Self
    where
        T: FnOnce(&mut FilteredResourcesMutBuilder),
    {
        FilteredResourcesMutParamBuilder(f)
    }
}

impl<'a> FilteredResourcesMutParamBuilder<Box<dyn FnOnce(&mut FilteredResourcesMutBuilder) + 'a>> {
    /// As [`new`](FilteredResourcesMutParamBuilder::new), with the closure
    /// boxed so that builders of different closures have one type.
    pub fn new_box(f: impl FnOnce(&mut FilteredResourcesMutBuilder) + 'a) -> Self {
        FilteredResourcesMutParamBuilder(Box::new(f))
    }
}

// SAFETY: any access is a valid state, and it is recorded.
unsafe impl<'w, 's, T: FnOnce(&mut FilteredResourcesMutBuilder)>
    SystemParamBuilder<FilteredResourcesMut<'w, 's>> for FilteredResourcesMutParamBuilder<T>
{
    #[track_caller]
    fn build(self, world: &mut World, meta: &mut SystemMeta) -> Access {
        let mut builder = FilteredResourcesMutBuilder::new(world);
        (self.0)(&mut builder);
        let access = builder.build();
        record(world, meta, "FilteredResourcesMut", &access);
        access
    }
}
