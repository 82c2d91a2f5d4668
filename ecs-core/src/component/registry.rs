use std::{
    alloc::Layout,
    any::{type_name, TypeId},
    borrow::Cow,
    fmt,
    panic::{catch_unwind, resume_unwind, AssertUnwindSafe},
};

use hashbrown::HashMap;

use super::{
    Component, ComponentCloneBehavior, ComponentHooks, RequiredComponent,
    RequiredComponentConstructor, RequiredComponentsError, RequiredComponentsRegistrar,
    SnapshotBehavior, StorageType,
};
use crate::{
    archetype::ArchetypeFlags, ptr::OwningPtr, resource::Resource, storage::SparseSetIndex,
    utils::TypeIdMap,
};

/// A dense identifier of a component (or resource) type within one
/// [`World`](crate::world::World).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ComponentId(u32);

impl ComponentId {
    /// Makes an id from its index. Ids are only meaningful in the world that
    /// handed them out.
    #[inline]
    pub const fn new(index: usize) -> ComponentId {
        ComponentId(index as u32)
    }

    /// The index of this id.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Debug for ComponentId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ComponentId({})", self.0)
    }
}

impl SparseSetIndex for ComponentId {
    #[inline]
    fn sparse_set_index(&self) -> usize {
        self.index()
    }
    #[inline]
    fn get_sparse_set_index(value: usize) -> Self {
        ComponentId::new(value)
    }
}

/// Everything the storage layer needs to know about a component type to
/// hold its values without knowing the type: name, storage, layout and
/// drop function.
#[derive(Clone)]
pub struct ComponentDescriptor {
    name: Cow<'static, str>,
    storage_type: StorageType,
    is_send_and_sync: bool,
    type_id: Option<TypeId>,
    layout: Layout,
    drop: Option<unsafe fn(*mut u8)>,
    clone_behavior: ComponentCloneBehavior,
    snapshot: SnapshotBehavior,
    /// Whether the component's change ticks are kept ([`Component::CHANGE_TICKS`]).
    change_ticks: bool,
    /// Whether values may be changed in place ([`Component::Mutability`]).
    mutable: bool,
    /// The component's own integrity check ([`Component::integrity_check`]).
    integrity: Option<super::IntegrityCheck>,
    /// The other end of its relationship ([`Component::snapshot_partner`]).
    snapshot_partner: Option<TypeId>,
    /// What the descriptor describes, which decides how
    /// [`Components::register_component_with_descriptor`] takes it.
    kind: DescriptorKind,
}

/// Where a [`ComponentDescriptor`] came from.
#[derive(Clone, Copy)]
enum DescriptorKind {
    /// `ComponentDescriptor::new::<T>()`: registered as `T` is by
    /// `register_component::<T>` (hooks and required components included).
    Typed(fn(&mut Components) -> ComponentId),
    /// `ComponentDescriptor::new_resource::<R>()`: not a component.
    Resource,
    /// `ComponentDescriptor::new_with_layout`: a component with no Rust
    /// type.
    Dynamic,
}

/// What `DescriptorKind::Typed` registers with.
fn register_typed<T: Component>(components: &mut Components) -> ComponentId {
    components.register_component::<T>()
}

impl fmt::Debug for ComponentDescriptor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ComponentDescriptor")
            .field("name", &self.name)
            .field("storage_type", &self.storage_type)
            .field("is_send_and_sync", &self.is_send_and_sync)
            .field("type_id", &self.type_id)
            .field("layout", &self.layout)
            .field("has_drop", &self.drop.is_some())
            .field("change_ticks", &self.change_ticks)
            .field("mutable", &self.mutable)
            .finish()
    }
}

/// # Safety
/// `ptr` must point to a valid, initialised `T` that is not used afterwards.
unsafe fn drop_ptr<T>(ptr: *mut u8) {
    // SAFETY: the caller guarantees `ptr` is a valid, owned `T`.
    unsafe { ptr.cast::<T>().drop_in_place() }
}

impl ComponentDescriptor {
    /// The descriptor of the Rust component type `T`.
    pub fn new<T: Component>() -> Self {
        Self {
            name: Cow::Borrowed(type_name::<T>()),
            storage_type: T::STORAGE_TYPE,
            is_send_and_sync: true,
            type_id: Some(TypeId::of::<T>()),
            layout: Layout::new::<T>(),
            drop: std::mem::needs_drop::<T>().then_some(drop_ptr::<T> as _),
            clone_behavior: T::clone_behavior(),
            snapshot: T::snapshot_behavior().checked_for(TypeId::of::<T>(), type_name::<T>()),
            change_ticks: T::CHANGE_TICKS,
            mutable: super::is_mutable::<T>(),
            integrity: T::integrity_check(),
            snapshot_partner: T::snapshot_partner(),
            kind: DescriptorKind::Typed(register_typed::<T>),
        }
    }

    /// The descriptor of the Rust resource type `R`.
    pub fn new_resource<R: Resource>() -> Self {
        Self {
            name: Cow::Borrowed(type_name::<R>()),
            storage_type: StorageType::Table,
            is_send_and_sync: true,
            type_id: Some(TypeId::of::<R>()),
            layout: Layout::new::<R>(),
            drop: std::mem::needs_drop::<R>().then_some(drop_ptr::<R> as _),
            clone_behavior: ComponentCloneBehavior::Ignore,
            snapshot: R::snapshot_behavior().checked_for(TypeId::of::<R>(), type_name::<R>()),
            change_ticks: true,
            mutable: true,
            integrity: None,
            snapshot_partner: None,
            kind: DescriptorKind::Resource,
        }
    }

    /// The descriptor of a non-send resource type `T` (any `'static`
    /// type; see [`NonSend`](crate::system::NonSend)).
    pub fn new_non_send<T: std::any::Any>(storage_type: StorageType) -> Self {
        Self {
            name: Cow::Borrowed(type_name::<T>()),
            storage_type,
            is_send_and_sync: false,
            type_id: Some(TypeId::of::<T>()),
            layout: Layout::new::<T>(),
            drop: std::mem::needs_drop::<T>().then_some(drop_ptr::<T> as _),
            clone_behavior: ComponentCloneBehavior::Ignore,
            snapshot: SnapshotBehavior::IGNORE,
            change_ticks: true,
            mutable: true,
            integrity: None,
            snapshot_partner: None,
            kind: DescriptorKind::Resource,
        }
    }

    /// A descriptor for a component with no Rust type behind it (scripting,
    /// dynamic components).
    ///
    /// Bevy's also takes mutability, clone behaviour and relationship
    /// settings; here the descriptor is mutable and clones nothing unless
    /// [`ComponentDescriptor::with_mutable`] and
    /// [`ComponentDescriptor::with_clone_behavior`] say otherwise, and
    /// dynamic components have no relationships.
    ///
    /// # Safety
    /// `drop`, if given, must be safe to call with a pointer to a value of
    /// `layout` that was written by the user of this component, and the
    /// values written must be valid to send and share between threads.
    pub unsafe fn new_with_layout(
        name: impl Into<Cow<'static, str>>,
        storage_type: StorageType,
        layout: Layout,
        drop: Option<for<'a> unsafe fn(OwningPtr<'a>)>,
    ) -> Self {
        Self {
            name: name.into(),
            storage_type,
            is_send_and_sync: true,
            type_id: None,
            layout,
            // SAFETY: `OwningPtr` is a `repr(transparent)` `NonNull<u8>`,
            // which has the ABI of `*mut u8`; storage only calls the
            // function with non-null pointers to owned values.
            drop: drop.map(|f| unsafe {
                std::mem::transmute::<for<'a> unsafe fn(OwningPtr<'a>), unsafe fn(*mut u8)>(f)
            }),
            clone_behavior: ComponentCloneBehavior::Default,
            snapshot: SnapshotBehavior::IGNORE,
            change_ticks: true,
            mutable: true,
            integrity: None,
            snapshot_partner: None,
            kind: DescriptorKind::Dynamic,
        }
    }

    /// The descriptor with `clone_behavior` (a dynamic component's is
    /// [`ComponentCloneBehavior::Default`], so it is skipped by cloning
    /// unless given one).
    pub fn with_clone_behavior(mut self, clone_behavior: ComponentCloneBehavior) -> Self {
        self.clone_behavior = clone_behavior;
        self
    }

    /// How the component is cloned.
    #[inline]
    pub fn clone_behavior(&self) -> &ComponentCloneBehavior {
        &self.clone_behavior
    }

    /// The descriptor of a dynamic component with its change ticks kept
    /// (`true`, the default) or not, as [`Component::CHANGE_TICKS`] does for a
    /// typed one (whose registration takes its type's setting): a
    /// component without them has its ticks left behind when its entity
    /// moves between tables, so what they read is unspecified.
    ///
    /// ```
    /// use ecs::component::{ComponentDescriptor, StorageType};
    /// use std::alloc::Layout;
    ///
    /// // SAFETY: `u32` values need no drop and are `Send + Sync`.
    /// let descriptor = unsafe {
    ///     ComponentDescriptor::new_with_layout("Speed", StorageType::Table, Layout::new::<u32>(), None)
    /// }
    /// .with_change_ticks(false);
    /// assert!(!descriptor.has_change_ticks());
    /// ```
    ///
    /// # Panics
    /// On a descriptor other than [`ComponentDescriptor::new_with_layout`]'s:
    /// a Rust component type decides with `#[component(no_change_ticks)]`.
    #[track_caller]
    pub fn with_change_ticks(mut self, keep: bool) -> Self {
        self.assert_dynamic("with_change_ticks", "#[component(no_change_ticks)]");
        self.change_ticks = keep;
        self
    }

    /// Whether the component's change ticks are kept.
    #[inline]
    pub fn has_change_ticks(&self) -> bool {
        self.change_ticks
    }

    /// The descriptor of a dynamic component that may be changed in place
    /// (`true`, the default) or only replaced, as [`Component::Mutability`]
    /// decides for a typed one: `get_mut_by_id` and the other untyped
    /// mutable accesses refuse an immutable component, and
    /// [`World::modify_component_by_id`](crate::world::World::modify_component_by_id)
    /// changes it with its hooks.
    ///
    /// ```
    /// use ecs::component::{ComponentDescriptor, StorageType};
    /// use ecs::prelude::*;
    /// use std::alloc::Layout;
    ///
    /// let mut world = World::new();
    /// // SAFETY: `u32` values need no drop and are `Send + Sync`.
    /// let descriptor = unsafe {
    ///     ComponentDescriptor::new_with_layout("Seed", StorageType::Table, Layout::new::<u32>(), None)
    /// }
    /// .with_mutable(false);
    /// let seed = world.register_component_with_descriptor(descriptor);
    /// assert!(!world.components().get_info(seed).unwrap().mutable());
    /// ```
    ///
    /// # Panics
    /// On a descriptor other than [`ComponentDescriptor::new_with_layout`]'s:
    /// a Rust component type decides with `#[component(immutable)]`.
    #[track_caller]
    pub fn with_mutable(mut self, mutable: bool) -> Self {
        self.assert_dynamic("with_mutable", "#[component(immutable)]");
        self.mutable = mutable;
        self
    }

    /// Refuses `setter` on a descriptor that is not a dynamic component's:
    /// a Rust component type decides with `attribute`.
    #[track_caller]
    fn assert_dynamic(&self, setter: &str, attribute: &str) {
        assert!(
            matches!(self.kind, DescriptorKind::Dynamic),
            "`{setter}` on the descriptor of `{}`: only a dynamic component's takes it; \
             a Rust component type decides with `{attribute}`",
            self.name
        );
    }

    /// Whether the component's values may be changed in place.
    #[inline]
    pub fn mutable(&self) -> bool {
        self.mutable
    }

    /// The component's name (its Rust type name for typed components).
    #[inline]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Where the component's values are stored.
    #[inline]
    pub fn storage_type(&self) -> StorageType {
        self.storage_type
    }

    /// The Rust type, if the component has one.
    #[inline]
    pub fn type_id(&self) -> Option<TypeId> {
        self.type_id
    }

    /// The memory layout of one value.
    #[inline]
    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// The function that drops one value in place, if values need dropping.
    #[inline]
    pub fn drop_fn(&self) -> Option<unsafe fn(*mut u8)> {
        self.drop
    }

    /// Whether values may be sent and shared between threads.
    #[inline]
    pub fn is_send_and_sync(&self) -> bool {
        self.is_send_and_sync
    }
}

/// A registered component: its id and descriptor.
#[derive(Debug, Clone)]
pub struct ComponentInfo {
    id: ComponentId,
    descriptor: ComponentDescriptor,
    hooks: ComponentHooks,
    /// Requirements declared by the type itself.
    required_direct: Vec<RequiredComponent>,
    /// Every requirement, transitively, in bevy's depth-first order (a
    /// direct requirement's constructor wins over an inherited one).
    required: Vec<RequiredComponent>,
    /// Which lifecycle events have observers watching this component.
    observer_flags: ArchetypeFlags,
    /// Set when the type is on a cycle of requirements (or its hooks or
    /// requirements failed to register): every later use of the component
    /// panics with this message, so it is never used with hooks or
    /// requirements silently missing.
    failed_registration: Option<String>,
}

impl ComponentInfo {
    /// The component's id.
    #[inline]
    pub fn id(&self) -> ComponentId {
        self.id
    }

    /// The component's name.
    #[inline]
    pub fn name(&self) -> &str {
        self.descriptor.name()
    }

    /// Where the component's values are stored.
    #[inline]
    pub fn storage_type(&self) -> StorageType {
        self.descriptor.storage_type
    }

    /// The Rust type, if the component has one.
    #[inline]
    pub fn type_id(&self) -> Option<TypeId> {
        self.descriptor.type_id
    }

    /// The memory layout of one value.
    #[inline]
    pub fn layout(&self) -> Layout {
        self.descriptor.layout
    }

    /// How the component is cloned.
    #[inline]
    pub fn clone_behavior(&self) -> &ComponentCloneBehavior {
        &self.descriptor.clone_behavior
    }

    /// The component's own integrity check, if it has one.
    pub(crate) fn integrity_check(&self) -> Option<super::IntegrityCheck> {
        self.descriptor.integrity
    }

    /// The type of the other end of this component's relationship, if it
    /// is one end of one.
    pub(crate) fn snapshot_partner(&self) -> Option<TypeId> {
        self.descriptor.snapshot_partner
    }

    /// Whether the component's change ticks are kept
    /// ([`Component::CHANGE_TICKS`], [`ComponentDescriptor::with_change_ticks`]).
    #[inline]
    pub fn has_change_ticks(&self) -> bool {
        self.descriptor.change_ticks
    }

    /// Whether the component's values may be changed in place
    /// ([`Component::Mutability`], [`ComponentDescriptor::with_mutable`]).
    #[inline]
    pub fn mutable(&self) -> bool {
        self.descriptor.mutable
    }

    /// The function that drops one value in place, if values need dropping.
    #[inline]
    pub fn drop_fn(&self) -> Option<unsafe fn(*mut u8)> {
        self.descriptor.drop
    }

    /// Whether the type declares itself part of every world's snapshots.
    #[inline]
    pub(crate) fn snapshot_behavior(&self) -> SnapshotBehavior {
        self.descriptor.snapshot
    }

    /// The full descriptor.
    #[inline]
    pub fn descriptor(&self) -> &ComponentDescriptor {
        &self.descriptor
    }

    /// The component's hooks.
    #[inline]
    pub fn hooks(&self) -> &ComponentHooks {
        &self.hooks
    }

    /// The components this one requires, transitively.
    #[inline]
    pub fn required_components(&self) -> &[RequiredComponent] {
        &self.required
    }

    #[inline]
    pub(crate) fn required_direct(&self) -> &[RequiredComponent] {
        &self.required_direct
    }

    /// The archetype flags this component contributes: its hooks and the
    /// observers watching it.
    #[inline]
    pub fn flags(&self) -> ArchetypeFlags {
        self.hooks.flags() | self.observer_flags
    }
}

/// The registry of every component and resource type a world knows.
///
/// Lookups from a Rust type go through a hash map keyed by `TypeId` with a
/// pass-through hasher (a `TypeId` is already a hash); hot loops use ids
/// cached in bundle infos and query states instead.
#[derive(Debug, Default)]
pub struct Components {
    components: Vec<ComponentInfo>,
    indices: TypeIdMap<ComponentId>,
    resource_indices: TypeIdMap<ComponentId>,
    by_name: HashMap<Cow<'static, str>, ComponentId>,
}

impl Components {
    /// Registers the component type `T` (once) and returns its id.
    #[inline]
    #[track_caller]
    pub fn register_component<T: Component>(&mut self) -> ComponentId {
        let type_id = TypeId::of::<T>();
        if let Some(&id) = self.indices.get(&type_id) {
            if let Some(failure) = &self.components[id.index()].failed_registration {
                panic!("{failure}");
            }
            return id;
        }
        let id = self.push(ComponentDescriptor::new::<T>());
        self.indices.insert(type_id, id);
        // Registering the hooks may panic (a hand-written impl setting one
        // hook twice), and registering the requirements registers their
        // types, which may panic (a cycle further down): either way `T` is
        // marked as failed like the components on a cycle, so that no later
        // use finds it registered with hooks or requirements missing.
        let registered = catch_unwind(AssertUnwindSafe(|| {
            T::register_component_hooks(&mut self.components[id.index()].hooks);
            let mut registrar = RequiredComponentsRegistrar {
                components: &mut *self,
                direct: Vec::new(),
            };
            T::register_required_components(&mut registrar);
            registrar.direct
        }));
        let direct = match registered {
            Ok(direct) => direct,
            Err(payload) => {
                // Our own messages (a cycle, a second hook) are `String`s
                // naming `T`; any other payload gets `T` named, and its
                // text kept if it has one.
                let message = match payload.downcast_ref::<String>() {
                    Some(message) => message.clone(),
                    None => format!(
                        "registering the hooks or the required components of `{}` panicked{}",
                        type_name::<T>(),
                        crate::utils::panic_message(&*payload)
                            .map(|text| format!(": {text}"))
                            .unwrap_or_default()
                    ),
                };
                self.components[id.index()].failed_registration = Some(message);
                resume_unwind(payload);
            }
        };
        if !direct.is_empty() {
            self.components[id.index()].required_direct = direct;
            match super::required_closure(self, id) {
                Ok(closure) => self.components[id.index()].required = closure,
                Err((cycle, members)) => {
                    // Every component on the cycle refuses later use.
                    for member in members {
                        self.components[member.index()].failed_registration = Some(cycle.clone());
                    }
                    panic!("{cycle}");
                }
            }
        }
        id
    }

    /// Makes `required` a direct requirement of `requiree`, made by
    /// `constructor`, and recomputes the transitive requirements of
    /// `requiree` and of every component requiring it.
    ///
    /// The caller checks that no archetype holds a component whose
    /// requirements change (its cached moves would miss the new one).
    pub(crate) fn register_required_components(
        &mut self,
        requiree: ComponentId,
        required: ComponentId,
        constructor: RequiredComponentConstructor,
    ) -> Result<(), RequiredComponentsError> {
        let required_info = self.get_info(required).expect("registered");
        if required == requiree || required_info.required.iter().any(|r| r.id == requiree) {
            return Err(RequiredComponentsError::CyclicRequirement(
                requiree, required,
            ));
        }
        let requiree_info = &mut self.components[requiree.index()];
        if requiree_info
            .required_direct
            .iter()
            .any(|r| r.id == required)
        {
            return Err(RequiredComponentsError::DuplicateRegistration(
                requiree, required,
            ));
        }
        requiree_info.required_direct.push(RequiredComponent {
            id: required,
            constructor,
        });
        let affected: Vec<ComponentId> = self.requirers_of(requiree).chain([requiree]).collect();
        for id in affected {
            let closure = super::required_closure(self, id)
                .unwrap_or_else(|(cycle, _)| unreachable!("checked above: {cycle}"));
            self.components[id.index()].required = closure;
        }
        Ok(())
    }

    /// The components requiring `id`, directly or not.
    pub(crate) fn requirers_of(&self, id: ComponentId) -> impl Iterator<Item = ComponentId> + '_ {
        self.components
            .iter()
            .filter(move |info| info.required.iter().any(|r| r.id == id))
            .map(|info| info.id)
    }

    /// Registers a component from a descriptor. A descriptor of a Rust
    /// component type (`ComponentDescriptor::new::<T>()`) registers `T`
    /// exactly as [`Components::register_component`] does, hooks and
    /// required components included, and returns its id if `T` is
    /// registered already; one made with `new_with_layout` is always a new
    /// component (two dynamic components may share a name).
    ///
    /// # Panics
    /// If the descriptor describes a resource
    /// (`ComponentDescriptor::new_resource`), naming it: a resource's
    /// descriptor always says table storage, which may not be what the
    /// type says as a component, and its values would be stored where no
    /// typed access to the component looks for them.
    #[track_caller]
    pub fn register_component_with_descriptor(
        &mut self,
        descriptor: ComponentDescriptor,
    ) -> ComponentId {
        match descriptor.kind {
            DescriptorKind::Typed(register) => register(self),
            DescriptorKind::Resource => panic!(
                "`{}` was described as a resource (`ComponentDescriptor::new_resource`) and cannot be registered as a component: describe components with `ComponentDescriptor::new` or `new_with_layout`",
                descriptor.name
            ),
            DescriptorKind::Dynamic => self.push(descriptor),
        }
    }

    /// Registers the resource type `R` (once) and returns its id.
    #[inline]
    pub fn register_resource<R: Resource>(&mut self) -> ComponentId {
        let type_id = TypeId::of::<R>();
        if let Some(&id) = self.resource_indices.get(&type_id) {
            return id;
        }
        let id = self.push(ComponentDescriptor::new_resource::<R>());
        self.resource_indices.insert(type_id, id);
        id
    }

    /// Registers the non-send resource type `T` (once) and returns its id,
    /// shared with `T` as a resource when it is one.
    #[inline]
    pub fn register_non_send<T: std::any::Any>(&mut self) -> ComponentId {
        let type_id = TypeId::of::<T>();
        if let Some(&id) = self.resource_indices.get(&type_id) {
            return id;
        }
        let id = self.push(ComponentDescriptor::new_non_send::<T>(StorageType::Table));
        self.resource_indices.insert(type_id, id);
        id
    }

    fn push(&mut self, descriptor: ComponentDescriptor) -> ComponentId {
        let id = ComponentId::new(self.components.len());
        assert!(
            self.components.len() < u32::MAX as usize,
            "too many components registered"
        );
        self.by_name.entry(descriptor.name.clone()).or_insert(id);
        let hooks = ComponentHooks::new(descriptor.name.clone());
        self.components.push(ComponentInfo {
            id,
            descriptor,
            hooks,
            required_direct: Vec::new(),
            required: Vec::new(),
            observer_flags: ArchetypeFlags::empty(),
            failed_registration: None,
        });
        id
    }

    /// The hooks of a registered component, mutably.
    pub(crate) fn hooks_mut(&mut self, id: ComponentId) -> &mut ComponentHooks {
        &mut self.components[id.index()].hooks
    }

    /// Adds observer flags to a registered component.
    pub(crate) fn add_observer_flags(&mut self, id: ComponentId, flags: ArchetypeFlags) {
        self.components[id.index()].observer_flags |= flags;
    }

    /// The number of registered components and resources.
    #[inline]
    pub fn len(&self) -> usize {
        self.components.len()
    }

    /// Whether nothing is registered.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.components.is_empty()
    }

    /// The number of registered components and resources
    /// ([`Components::len`], by bevy's name).
    #[inline]
    pub fn num_registered(&self) -> usize {
        self.components.len()
    }

    /// Whether anything is registered.
    #[inline]
    pub fn any_registered(&self) -> bool {
        !self.components.is_empty()
    }

    /// Every registration, with its id.
    pub fn iter_registered(&self) -> impl Iterator<Item = (ComponentId, &ComponentInfo)> + '_ {
        self.components.iter().map(|info| (info.id(), info))
    }

    /// Whether `id` is registered here.
    #[inline]
    pub fn is_id_valid(&self, id: ComponentId) -> bool {
        id.index() < self.components.len()
    }

    /// The id of the component type `T`, if registered
    /// ([`Components::component_id`], by bevy's name).
    #[inline]
    pub fn valid_component_id<T: Component>(&self) -> Option<ComponentId> {
        self.component_id::<T>()
    }

    /// The descriptor of a registered component.
    #[inline]
    pub fn get_descriptor(&self, id: ComponentId) -> Option<&ComponentDescriptor> {
        self.get_info(id).map(ComponentInfo::descriptor)
    }

    /// Whether `id` was registered as a resource rather than a component.
    pub(crate) fn is_resource(&self, id: ComponentId) -> bool {
        self.get_info(id)
            .is_some_and(|info| matches!(info.descriptor.kind, DescriptorKind::Resource))
    }

    /// The info of a registered component.
    #[inline]
    pub fn get_info(&self, id: ComponentId) -> Option<&ComponentInfo> {
        self.components.get(id.index())
    }

    /// The name of a registered component.
    #[inline]
    pub fn get_name(&self, id: ComponentId) -> Option<&str> {
        self.get_info(id).map(ComponentInfo::name)
    }

    /// The info of a component id known to be registered.
    ///
    /// # Safety
    /// `id` must have been handed out by this registry.
    #[inline]
    pub unsafe fn get_info_unchecked(&self, id: ComponentId) -> &ComponentInfo {
        debug_assert!(id.index() < self.components.len());
        // SAFETY: ids handed out by this registry index `components`, which
        // never shrinks.
        unsafe { self.components.get_unchecked(id.index()) }
    }

    /// The id of a component type, if registered.
    #[inline]
    pub fn get_id(&self, type_id: TypeId) -> Option<ComponentId> {
        self.indices.get(&type_id).copied()
    }

    /// The id of the component type `T`, if registered.
    #[inline]
    pub fn component_id<T: Component>(&self) -> Option<ComponentId> {
        self.get_id(TypeId::of::<T>())
    }

    /// The id of a resource type, if registered.
    #[inline]
    pub fn get_resource_id(&self, type_id: TypeId) -> Option<ComponentId> {
        self.resource_indices.get(&type_id).copied()
    }

    /// The id of the resource type `R`, if registered.
    #[inline]
    pub fn resource_id<R: Resource>(&self) -> Option<ComponentId> {
        self.get_resource_id(TypeId::of::<R>())
    }

    /// The first component registered under `name`.
    pub fn id_by_name(&self, name: &str) -> Option<ComponentId> {
        self.by_name.get(name).copied()
    }

    /// Every registered component and resource, by id.
    pub fn iter(&self) -> impl Iterator<Item = &ComponentInfo> + '_ {
        self.components.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::alloc::Layout;

    struct A(#[allow(dead_code)] u32);
    impl Component for A {
        const STORAGE_TYPE: StorageType = StorageType::Table;
        type Mutability = crate::component::Mutable;
    }
    struct B(#[allow(dead_code)] String);
    impl Component for B {
        const STORAGE_TYPE: StorageType = StorageType::SparseSet;
        type Mutability = crate::component::Mutable;
    }

    #[test]
    fn registering_twice_gives_the_same_id() {
        let mut c = Components::default();
        let a = c.register_component::<A>();
        let b = c.register_component::<B>();
        assert_ne!(a, b);
        assert_eq!(c.register_component::<A>(), a);
        assert_eq!(c.component_id::<B>(), Some(b));
        assert_eq!(
            c.get_info(b).unwrap().storage_type(),
            StorageType::SparseSet
        );
        assert!(c.get_info(a).unwrap().drop_fn().is_none());
        assert!(c.get_info(b).unwrap().drop_fn().is_some());
        assert!(c.get_name(a).unwrap().ends_with("::A"));
    }

    #[test]
    fn dynamic_components_are_always_new() {
        let mut c = Components::default();
        // SAFETY: no drop function; plain bytes are Send and Sync.
        let d = unsafe {
            ComponentDescriptor::new_with_layout(
                "dyn",
                StorageType::Table,
                Layout::new::<u64>(),
                None,
            )
        };
        let x = c.register_component_with_descriptor(d.clone());
        let y = c.register_component_with_descriptor(d);
        assert_ne!(x, y);
        assert_eq!(c.id_by_name("dyn"), Some(x));
        assert_eq!(c.get_info(y).unwrap().type_id(), None);
    }

    #[test]
    fn resources_and_components_of_one_type_are_distinct() {
        struct R;
        impl Component for R {
            const STORAGE_TYPE: StorageType = StorageType::Table;
            type Mutability = crate::component::Mutable;
        }
        impl Resource for R {}
        let mut c = Components::default();
        let as_component = c.register_component::<R>();
        let as_resource = c.register_resource::<R>();
        assert_ne!(as_component, as_resource);
        assert_eq!(c.resource_id::<R>(), Some(as_resource));
    }
}
