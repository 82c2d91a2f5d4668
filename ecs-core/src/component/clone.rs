//! How a component is cloned when its entity is cloned.
//!
//! Each component type carries a [`ComponentCloneBehavior`], set with
//! `#[component(clone_behavior = ..)]` or, by default, chosen by
//! `#[derive(Component)]`:
//!
//! ```text
//! type is Clone      ─▶ ComponentCloneBehavior::clone::<Self>()  (cloned through Clone)
//! type is not Clone  ─▶ ComponentCloneBehavior::Default          (the cloner's default: skipped)
//! #[component(clone_behavior = Ignore)]   ─▶ never cloned
//! #[component(clone_behavior = Custom(f))] ─▶ f writes the clone
//! ```
//!
//! The derive tells `Clone` types apart with autoderef specialisation
//! ([`DefaultCloneBehaviorSpecialization`]), as bevy does: the method on
//! `&Specialization<C>` exists only when `C: Clone`, and method lookup
//! prefers it over the fallback. For a generic type the lookup happens
//! where the derive expands, without the caller's bounds, so such a type
//! falls back to `Default` unless it names its behavior.

use std::marker::PhantomData;

use crate::component::Component;
use crate::entity::{ComponentCloneCtx, SourceComponent};

/// A function that clones one component of the source entity into the
/// target, through [`ComponentCloneCtx::write_target_component`].
pub type ComponentCloneFn = fn(&SourceComponent, &mut ComponentCloneCtx);

/// How a [`Component`] is cloned (or moved) by the
/// [`EntityCloner`](crate::entity::EntityCloner).
#[derive(Clone, Debug, Default)]
pub enum ComponentCloneBehavior {
    /// The cloner's default function: it skips the component (bevy's
    /// default clones through reflection, which this crate does not have),
    /// or moves it bitwise when the cloner moves components.
    #[default]
    Default,
    /// Never cloned nor moved.
    Ignore,
    /// Cloned by this function.
    Custom(ComponentCloneFn),
}

impl ComponentCloneBehavior {
    /// Clones through `C`'s [`Clone`]. Set on any other component, the
    /// clone panics naming both types.
    pub fn clone<C: Component + Clone>() -> Self {
        Self::Custom(component_clone_via_clone::<C>)
    }

    /// The function [`ComponentCloneBehavior::Default`] resolves to when
    /// the cloner was given none: [`component_clone_ignore`].
    pub fn global_default_fn() -> ComponentCloneFn {
        component_clone_ignore
    }

    /// The function this behavior clones with, `default` standing for
    /// [`ComponentCloneBehavior::Default`].
    pub fn resolve(&self, default: ComponentCloneFn) -> ComponentCloneFn {
        match self {
            Self::Default => default,
            Self::Ignore => component_clone_ignore,
            Self::Custom(custom) => *custom,
        }
    }
}

/// Clones the component through its [`Clone`] impl (and maps the entities
/// it holds).
pub fn component_clone_via_clone<C: Clone + Component>(
    source: &SourceComponent,
    ctx: &mut ComponentCloneCtx,
) {
    if let Some(component) = source.read::<C>() {
        ctx.write_target_component(component.clone());
    } else {
        panic!(
            "the clone behavior of `{}` clones through `{}`'s `Clone`: a component's behavior must clone that component",
            ctx.component_info().name(),
            std::any::type_name::<C>()
        );
    }
}

/// Clones nothing: the component is skipped.
pub fn component_clone_ignore(_source: &SourceComponent, _ctx: &mut ComponentCloneCtx) {}

/// The receiver of the derive's autoderef specialisation.
#[doc(hidden)]
pub struct DefaultCloneBehaviorSpecialization<T>(PhantomData<T>);

impl<T> Default for DefaultCloneBehaviorSpecialization<T> {
    fn default() -> Self {
        Self(PhantomData)
    }
}

/// The fallback of the derive's specialisation: any type.
#[doc(hidden)]
pub trait DefaultCloneBehaviorBase {
    fn default_clone_behavior(&self) -> ComponentCloneBehavior;
}

impl<C> DefaultCloneBehaviorBase for DefaultCloneBehaviorSpecialization<C> {
    fn default_clone_behavior(&self) -> ComponentCloneBehavior {
        ComponentCloneBehavior::Default
    }
}

/// The preferred arm of the derive's specialisation: `Clone` types.
#[doc(hidden)]
pub trait DefaultCloneBehaviorViaClone {
    fn default_clone_behavior(&self) -> ComponentCloneBehavior;
}

impl<C: Clone + Component> DefaultCloneBehaviorViaClone for &DefaultCloneBehaviorSpecialization<C> {
    fn default_clone_behavior(&self) -> ComponentCloneBehavior {
        ComponentCloneBehavior::clone::<C>()
    }
}
