use std::{mem::ManuallyDrop, sync::Arc};

use hashbrown::HashMap;

use super::{Component, ComponentId, Components, StorageType};

/// A sink that takes ownership of one type-erased value.
type ValueSink<'a> = &'a mut dyn FnMut(StorageType, *mut u8);

/// Makes one value of a required component and hands it to a sink (as a
/// bundle hands out its values: the sink moves the value out).
#[derive(Clone)]
pub struct RequiredComponentConstructor(Arc<dyn for<'a> Fn(ValueSink<'a>) + Send + Sync>);

impl RequiredComponentConstructor {
    /// A constructor calling `make`.
    pub fn new<C: Component>(make: impl Fn() -> C + Send + Sync + 'static) -> Self {
        RequiredComponentConstructor(Arc::new(
            move |sink: &mut dyn FnMut(StorageType, *mut u8)| {
                let mut value = ManuallyDrop::new(make());
                sink(C::STORAGE_TYPE, (&mut *value as *mut C).cast::<u8>());
            },
        ))
    }

    /// Makes a value and hands it to `sink`, which takes ownership.
    #[inline]
    pub fn make(&self, sink: &mut dyn FnMut(StorageType, *mut u8)) {
        (self.0)(sink)
    }
}

impl std::fmt::Debug for RequiredComponentConstructor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RequiredComponentConstructor")
    }
}

/// One required component: its id and how to make its default value.
#[derive(Debug, Clone)]
pub struct RequiredComponent {
    /// The required component.
    pub id: ComponentId,
    /// How to make it.
    pub constructor: RequiredComponentConstructor,
}

/// Collects the components a component type requires (what
/// `#[require(..)]` generates calls to).
pub struct RequiredComponentsRegistrar<'a> {
    pub(crate) components: &'a mut Components,
    pub(crate) direct: Vec<RequiredComponent>,
}

impl RequiredComponentsRegistrar<'_> {
    /// Requires `C`, made by `make` when the entity lacks it.
    pub fn register<C: Component>(
        &mut self,
        make: impl Fn() -> C + Send + Sync + 'static,
    ) -> &mut Self {
        let id = self.components.register_component::<C>();
        if !self.direct.iter().any(|r| r.id == id) {
            self.direct.push(RequiredComponent {
                id,
                constructor: RequiredComponentConstructor::new(make),
            });
        }
        self
    }
}

/// Computes the transitive requirements of `id` from the direct ones, in
/// bevy's order: each direct requirement brings its own requirements
/// first (depth-first, earlier direct requirements first), and a direct
/// requirement's constructor always replaces an inherited one.
///
/// Returns an error naming the components if the requirements form a
/// cycle, with the components on it.
pub(crate) fn closure(
    components: &Components,
    id: ComponentId,
) -> Result<Vec<RequiredComponent>, (String, Vec<ComponentId>)> {
    let mut memo = HashMap::new();
    closure_of(components, id, &mut vec![id], &mut memo)
}

/// One step of [`closure`]: `path` is the chain of requirers from the
/// root to `id`, `memo` the closures finished so far.
fn closure_of(
    components: &Components,
    id: ComponentId,
    path: &mut Vec<ComponentId>,
    memo: &mut HashMap<ComponentId, Vec<RequiredComponent>>,
) -> Result<Vec<RequiredComponent>, (String, Vec<ComponentId>)> {
    if let Some(done) = memo.get(&id) {
        return Ok(done.clone());
    }
    let info = components.get_info(id).expect("registered");
    let mut all: Vec<RequiredComponent> = Vec::new();
    for required in info.required_direct() {
        if path.contains(&required.id) {
            return Err(cycle_error(components, path, required.id));
        }
        // Already inherited through an earlier requirement: its own
        // requirements are in `all` already.
        if !all.iter().any(|r| r.id == required.id) {
            path.push(required.id);
            let inherited = closure_of(components, required.id, path, memo)?;
            path.pop();
            for r in inherited {
                if !all.iter().any(|a| a.id == r.id) {
                    all.push(r);
                }
            }
        }
        match all.iter_mut().find(|r| r.id == required.id) {
            Some(slot) => slot.constructor = required.constructor.clone(),
            None => all.push(required.clone()),
        }
    }
    memo.insert(id, all.clone());
    Ok(all)
}

fn cycle_error(
    components: &Components,
    path: &[ComponentId],
    back_to: ComponentId,
) -> (String, Vec<ComponentId>) {
    let names: Vec<&str> = path
        .iter()
        .chain([&back_to])
        .map(|&c| components.get_name(c).unwrap_or("?"))
        .collect();
    (
        format!(
            "required components form a cycle: {}",
            names.join(" requires ")
        ),
        path.to_vec(),
    )
}

/// Why [`World::try_register_required_components`] refused a requirement.
///
/// The variants hold ids, as bevy's do; [`RequiredComponentsError::describe`]
/// names the components, and the panicking
/// [`World::register_required_components`] panics with that text.
///
/// [`World::try_register_required_components`]: crate::world::World::try_register_required_components
/// [`World::register_required_components`]: crate::world::World::register_required_components
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum RequiredComponentsError {
    /// The first component already directly requires the second.
    DuplicateRegistration(ComponentId, ComponentId),
    /// The requirement would make a cycle: the first component (the
    /// requiree) is already required, directly or not, by the second.
    CyclicRequirement(ComponentId, ComponentId),
    /// An archetype with this component already exists, so entities that
    /// have it (and cached archetype moves) lack the new requirement.
    ArchetypeExists(ComponentId),
}

impl RequiredComponentsError {
    /// The error's message with the components named from `components`
    /// (the registry of the world that returned it).
    pub fn describe(&self, components: &Components) -> String {
        let name = |id: ComponentId| {
            components
                .get_name(id)
                .map_or_else(|| format!("{id:?}"), |name| format!("`{name}`"))
        };
        match *self {
            Self::DuplicateRegistration(requiree, required) => format!(
                "component {} already directly requires component {}",
                name(requiree),
                name(required)
            ),
            Self::CyclicRequirement(requiree, required) => format!(
                "requiring {} from {} would make a cycle: {} already requires {}",
                name(required),
                name(requiree),
                name(required),
                name(requiree)
            ),
            Self::ArchetypeExists(id) => format!(
                "an archetype with component {} already exists: register required components before the component is first added to an entity",
                name(id)
            ),
        }
    }
}

impl std::fmt::Display for RequiredComponentsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Self::DuplicateRegistration(requiree, required) => write!(
                f,
                "component {requiree:?} already directly requires component {required:?}"
            ),
            Self::CyclicRequirement(requiree, required) => write!(
                f,
                "cyclic requirement: the requiree component {requiree:?} is required by the required component {required:?}"
            ),
            Self::ArchetypeExists(id) => write!(
                f,
                "an archetype with the component {id:?} that requires other components already exists"
            ),
        }
    }
}

impl std::error::Error for RequiredComponentsError {}
