//! `#[derive(Event)]`: the impl that lets a type be triggered and
//! observed, with bevy's default trigger (`GlobalTrigger`); and
//! `#[derive(EntityEvent)]`: an event aimed at the entity in one of its
//! fields, triggered with `EntityTrigger` or, when it propagates,
//! `PropagateEntityTrigger`.

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use syn::{Data, DeriveInput, Fields, Index, Member, Path, Type};

use crate::attr::EcsAttr;
use crate::errors::Errors;
use crate::generics::reject_lifetimes;
use crate::marker::MarkerInput;

/// The container attribute of `#[derive(EntityEvent)]`.
const ENTITY_EVENT: &str = "entity_event";
/// The field attribute naming the target.
const EVENT_TARGET: &str = "event_target";

/// Expands `#[derive(Event)]` on `input`.
pub(crate) fn derive(input: &DeriveInput) -> syn::Result<TokenStream> {
    Ok(MarkerInput::parse(input, "Event")?.generate_with(
        quote!(event::Event),
        |krate| quote!(type Trigger<'a> = #krate::event::GlobalTrigger;),
    ))
}

/// An entity event as the derive reads it.
struct EntityEventInput<'a> {
    input: &'a DeriveInput,
    krate: Path,
    /// The field holding the target.
    target: Member,
    /// `Some` when it propagates: the traversal, if one was named.
    propagate: Option<Option<Type>>,
    auto_propagate: bool,
}

/// Expands `#[derive(EntityEvent)]` on `input`.
pub(crate) fn derive_entity(input: &DeriveInput) -> syn::Result<TokenStream> {
    Ok(EntityEventInput::parse(input)?.generate())
}

impl<'a> EntityEventInput<'a> {
    /// Reads and validates `input`, reporting every problem at once.
    fn parse(input: &'a DeriveInput) -> syn::Result<Self> {
        let mut errors = Errors::default();
        let EcsAttr { krate } = EcsAttr::parse(&input.attrs, &mut errors);
        reject_lifetimes(&input.generics, "EntityEvent", &mut errors);
        let (propagate, auto_propagate) = parse_container(input, &mut errors);
        let target = find_target(input, &mut errors);
        errors.check()?;
        Ok(Self {
            input,
            krate,
            target: target.expect("an error was reported otherwise"),
            propagate,
            auto_propagate,
        })
    }

    fn generate(&self) -> TokenStream {
        let Self {
            input,
            krate,
            target,
            propagate,
            auto_propagate,
        } = self;
        let ident = &input.ident;
        let (impl_generics, ty_generics, _) = input.generics.split_for_impl();
        let where_clause = crate::bounds::where_self_is_send_sync_static(&input.generics);
        let trigger = match propagate {
            None => quote!(#krate::event::EntityTrigger),
            Some(traversal) => {
                let traversal = match traversal {
                    Some(traversal) => traversal.to_token_stream(),
                    None => quote!(&'static #krate::hierarchy::ChildOf),
                };
                quote!(#krate::event::PropagateEntityTrigger<#auto_propagate, Self, #traversal>)
            }
        };
        let set_target = propagate.is_some().then(|| {
            quote! {
                #[automatically_derived]
                impl #impl_generics #krate::event::SetEntityEventTarget for #ident #ty_generics #where_clause {
                    fn set_event_target(&mut self, entity: #krate::entity::Entity) {
                        self.#target = entity;
                    }
                }
            }
        });
        quote! {
            #[automatically_derived]
            impl #impl_generics #krate::event::Event for #ident #ty_generics #where_clause {
                type Trigger<'a> = #trigger;
            }

            #[automatically_derived]
            impl #impl_generics #krate::event::EntityEvent for #ident #ty_generics #where_clause {
                fn event_target(&self) -> #krate::entity::Entity {
                    self.#target
                }
            }

            #set_target
        }
    }
}

/// Reads every `#[entity_event(..)]`: `propagate`, `propagate = Traversal`
/// and `auto_propagate` (which implies `propagate`).
fn parse_container(input: &DeriveInput, errors: &mut Errors) -> (Option<Option<Type>>, bool) {
    let mut propagate: Option<Option<Type>> = None;
    let mut auto_propagate = false;
    let mut seen: Vec<String> = Vec::new();
    for attr in input
        .attrs
        .iter()
        .filter(|a| a.path().is_ident(ENTITY_EVENT))
    {
        let parsed = attr.parse_nested_meta(|meta| {
            let key = crate::attr::key_name(&meta.path);
            if seen.contains(&key) {
                return Err(meta.error(format!("`{key}` is given twice")));
            }
            seen.push(key);
            if meta.path.is_ident("propagate") {
                let traversal = if meta.input.peek(syn::Token![=]) {
                    Some(meta.value()?.parse::<Type>()?)
                } else {
                    None
                };
                propagate = Some(traversal.or(propagate.take().flatten()));
                Ok(())
            } else if meta.path.is_ident("auto_propagate") {
                auto_propagate = true;
                propagate.get_or_insert(None);
                Ok(())
            } else {
                Err(crate::attr::unknown_key(
                    ENTITY_EVENT,
                    &meta.path,
                    &["propagate", "auto_propagate"],
                ))
            }
        });
        errors.take(parsed);
    }
    (propagate, auto_propagate)
}

/// The field holding the target: the one marked `#[event_target]`, else
/// the one named `entity`, else the only field of a tuple struct.
fn find_target(input: &DeriveInput, errors: &mut Errors) -> Option<Member> {
    let fields = match &input.data {
        Data::Struct(data) => &data.fields,
        Data::Enum(data) => {
            errors.push_spanned(
                data.enum_token,
                "`EntityEvent` derives only for structs: the target is one of its fields",
            );
            return None;
        }
        Data::Union(data) => {
            errors.push_spanned(
                data.union_token,
                "`EntityEvent` derives only for structs: the target is one of its fields",
            );
            return None;
        }
    };
    let marked: Vec<(Member, &syn::Field)> = fields
        .members()
        .zip(fields.iter())
        .filter(|(_, field)| field.attrs.iter().any(|a| a.path().is_ident(EVENT_TARGET)))
        .collect();
    for (_, field) in marked.iter().skip(1) {
        let attr = field
            .attrs
            .iter()
            .find(|a| a.path().is_ident(EVENT_TARGET))
            .expect("filtered on it");
        errors.push_spanned(
            attr,
            "`#[event_target]` is given on more than one field: an entity event has one target",
        );
    }
    if let Some((member, _)) = marked.into_iter().next() {
        return Some(member);
    }
    let found = match fields {
        Fields::Named(named) => named
            .named
            .iter()
            .find(|field| field.ident.as_ref().is_some_and(|ident| ident == "entity"))
            .map(|field| Member::Named(field.ident.clone().expect("named"))),
        Fields::Unnamed(unnamed) if unnamed.unnamed.len() == 1 => {
            Some(Member::Unnamed(Index::from(0)))
        }
        Fields::Unnamed(_) | Fields::Unit => None,
    };
    if found.is_none() {
        let message = match fields {
            Fields::Named(_) => {
                "`EntityEvent` needs a target: a field named `entity`, or a field marked `#[event_target]`"
            }
            Fields::Unnamed(_) => {
                "`EntityEvent` needs a target: a tuple struct of one field, or a field marked `#[event_target]`"
            }
            Fields::Unit => {
                "`EntityEvent` needs a target: give the struct an `entity: Entity` field (`struct Hit { entity: Entity }` or `struct Hit(Entity)`)"
            }
        };
        match fields {
            Fields::Unit => errors.push_spanned(&input.ident, message),
            _ => errors.push_spanned(fields, message),
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use syn::parse_quote;

    use super::*;

    #[test]
    fn marker_impl_keeps_generics() {
        let input = parse_quote!(
            enum E<T: Send + Sync + 'static, const N: usize>
            where
                T: Clone,
            {
                A([T; N]),
                B,
            }
        );
        let out = derive(&input).unwrap().to_string();
        assert_eq!(
            out,
            "# [automatically_derived] impl < T : Send + Sync + 'static , const N : usize > \
             :: ecs :: event :: Event for E < T , N > where T : Clone , \
             Self : :: core :: marker :: Send + :: core :: marker :: Sync + 'static \
             { type Trigger < 'a > = :: ecs :: event :: GlobalTrigger ; }"
        );
    }

    #[test]
    fn crate_path_replaces_the_root() {
        let input = parse_quote!(
            #[ecs(crate = ecs_core)]
            union U {
                a: u32,
                b: f32,
            }
        );
        let out = derive(&input).unwrap().to_string();
        assert!(
            out.contains("impl ecs_core :: event :: Event for U")
                && out.contains("ecs_core :: event :: GlobalTrigger"),
            "{out}"
        );
    }

    #[test]
    fn lifetimes_are_rejected() {
        let input = parse_quote!(
            struct E<'a>(&'a str);
        );
        let error = derive(&input).unwrap_err();
        assert_eq!(
            error.to_string(),
            "`Event` types must be 'static: remove the lifetime parameter `'a`"
        );
    }

    #[test]
    fn entity_event_uses_the_entity_field() {
        let input = parse_quote!(
            struct Hit {
                damage: u32,
                entity: Entity,
            }
        );
        let out = derive_entity(&input).unwrap().to_string();
        assert!(
            out.contains("type Trigger < 'a > = :: ecs :: event :: EntityTrigger")
                && out.contains("self . entity")
                && !out.contains("SetEntityEventTarget"),
            "{out}"
        );
    }

    #[test]
    fn entity_event_marked_field_wins_over_entity() {
        let input = parse_quote!(
            struct Hit {
                entity: Entity,
                #[event_target]
                victim: Entity,
            }
        );
        let out = derive_entity(&input).unwrap().to_string();
        assert!(out.contains("self . victim"), "{out}");
    }

    #[test]
    fn entity_event_propagation_parses_as_bevy() {
        let input = parse_quote!(
            #[entity_event(propagate = &'static Parent, auto_propagate)]
            struct Click(Entity);
        );
        let out = derive_entity(&input).unwrap().to_string();
        assert!(
            out.contains("PropagateEntityTrigger < true , Self , & 'static Parent >")
                && out.contains("fn set_event_target")
                && out.contains("self . 0 = entity"),
            "{out}"
        );
        let input = parse_quote!(
            #[entity_event(propagate)]
            struct Click(Entity);
        );
        let out = derive_entity(&input).unwrap().to_string();
        assert!(
            out.contains("PropagateEntityTrigger < false , Self , & 'static :: ecs :: hierarchy :: ChildOf >"),
            "{out}"
        );
    }

    #[test]
    fn entity_event_errors_are_reported_together() {
        let input = parse_quote!(
            #[entity_event(propagate, bubble)]
            struct Hit {
                #[event_target]
                a: Entity,
                #[event_target]
                b: Entity,
            }
        );
        let message = derive_entity(&input)
            .unwrap_err()
            .into_iter()
            .map(|e| e.to_string())
            .collect::<Vec<_>>();
        assert_eq!(message.len(), 2, "{message:?}");
        assert!(message[0].contains("bubble"), "{message:?}");
        assert!(message[1].contains("more than one field"), "{message:?}");
    }
}
