use std::borrow::Cow;

use super::ComponentId;
use crate::{archetype::ArchetypeFlags, entity::Entity, world::DeferredWorld};

/// A component lifecycle hook: runs when a value of the component is
/// added, inserted, replaced, removed or despawned.
pub type ComponentHook = for<'w> fn(DeferredWorld<'w>, HookContext);

/// What a hook is told: which entity and which component.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HookContext {
    /// The entity whose component is affected.
    pub entity: Entity,
    /// The component.
    pub component_id: ComponentId,
}

/// The hooks of one component type, at most one of each kind.
///
/// [`lifecycle`](crate::lifecycle) describes the events they run on and
/// their order.
///
/// | hook | runs | the value is |
/// |---|---|---|
/// | `on_add` | when the entity did not have the component | in place |
/// | `on_insert` | on every insert (after `on_add`) | in place |
/// | `on_discard` | before a value is replaced or removed | still there |
/// | `on_remove` | before the component is removed (after `on_discard`) | still there |
/// | `on_despawn` | before the entity is despawned (before `on_discard`) | still there |
#[derive(Clone)]
pub struct ComponentHooks {
    component: Cow<'static, str>,
    pub(crate) on_add: Option<ComponentHook>,
    pub(crate) on_insert: Option<ComponentHook>,
    pub(crate) on_discard: Option<ComponentHook>,
    pub(crate) on_remove: Option<ComponentHook>,
    pub(crate) on_despawn: Option<ComponentHook>,
}

impl std::fmt::Debug for ComponentHooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ComponentHooks")
            .field("component", &self.component)
            .field("on_add", &self.on_add.is_some())
            .field("on_insert", &self.on_insert.is_some())
            .field("on_discard", &self.on_discard.is_some())
            .field("on_remove", &self.on_remove.is_some())
            .field("on_despawn", &self.on_despawn.is_some())
            .finish()
    }
}

macro_rules! hook_setter {
    ($name:ident, $try_name:ident, $kind:literal) => {
        #[doc = concat!("Sets the `", $kind, "` hook, or returns `None` if the component already has one.")]
        pub fn $try_name(&mut self, hook: ComponentHook) -> Option<&mut Self> {
            if self.$name.is_some() {
                return None;
            }
            self.$name = Some(hook);
            Some(self)
        }

        #[doc = concat!("Sets the `", $kind, "` hook.")]
        ///
        /// # Panics
        /// If the component already has one, naming the component.
        #[track_caller]
        pub fn $name(&mut self, hook: ComponentHook) -> &mut Self {
            if self.$name.is_some() {
                panic!(
                    concat!(
                        "component `{}` already has an `",
                        $kind,
                        "` hook; a component has at most one of each kind"
                    ),
                    self.component
                );
            }
            self.$name = Some(hook);
            self
        }
    };
}

impl ComponentHooks {
    pub(crate) fn new(component: Cow<'static, str>) -> Self {
        ComponentHooks {
            component,
            on_add: None,
            on_insert: None,
            on_discard: None,
            on_remove: None,
            on_despawn: None,
        }
    }

    hook_setter!(on_add, try_on_add, "on_add");
    hook_setter!(on_insert, try_on_insert, "on_insert");
    hook_setter!(on_discard, try_on_discard, "on_discard");
    hook_setter!(on_remove, try_on_remove, "on_remove");
    hook_setter!(on_despawn, try_on_despawn, "on_despawn");

    /// Sets the `on_discard` hook.
    ///
    /// # Panics
    /// If the component already has one, naming the component.
    #[deprecated(note = "renamed to on_discard, as in bevy 0.20")]
    #[track_caller]
    pub fn on_replace(&mut self, hook: ComponentHook) -> &mut Self {
        self.on_discard(hook)
    }

    /// The archetype flags these hooks call for.
    pub fn flags(&self) -> ArchetypeFlags {
        let mut flags = ArchetypeFlags::empty();
        flags.set(ArchetypeFlags::ON_ADD_HOOK, self.on_add.is_some());
        flags.set(ArchetypeFlags::ON_INSERT_HOOK, self.on_insert.is_some());
        flags.set(ArchetypeFlags::ON_DISCARD_HOOK, self.on_discard.is_some());
        flags.set(ArchetypeFlags::ON_REMOVE_HOOK, self.on_remove.is_some());
        flags.set(ArchetypeFlags::ON_DESPAWN_HOOK, self.on_despawn.is_some());
        flags
    }
}
