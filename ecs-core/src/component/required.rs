use std::{mem::ManuallyDrop, sync::Arc};

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

/// Computes the transitive requirements of `id` from the direct ones:
/// breadth-first, so the constructor of the nearest requirer wins.
///
/// Returns an error naming the components if the requirements form a
/// cycle, with the components on it.
pub(crate) fn closure(
    components: &Components,
    id: ComponentId,
) -> Result<Vec<RequiredComponent>, (String, Vec<ComponentId>)> {
    let mut result: Vec<RequiredComponent> = Vec::new();
    let mut frontier: Vec<(ComponentId, Vec<ComponentId>)> = vec![(id, vec![id])];
    while !frontier.is_empty() {
        let mut next = Vec::new();
        for (current, path) in frontier {
            let info = components.get_info(current).expect("registered");
            for required in info.required_direct() {
                if required.id == id || path.contains(&required.id) {
                    let mut names: Vec<&str> = path
                        .iter()
                        .map(|&c| components.get_name(c).unwrap_or("?"))
                        .collect();
                    names.push(components.get_name(required.id).unwrap_or("?"));
                    return Err((
                        format!(
                            "required components form a cycle: {}",
                            names.join(" requires ")
                        ),
                        path,
                    ));
                }
                if !result.iter().any(|r| r.id == required.id) {
                    result.push(required.clone());
                    let mut path = path.clone();
                    path.push(required.id);
                    next.push((required.id, path));
                }
            }
        }
        frontier = next;
    }
    Ok(result)
}
