//! `#[relationship(relationship_target = T)]` and
//! `#[relationship_target(relationship = R, linked_spawn)]`: read them
//! (and the field they link, the only one or the one marked
//! `#[relationship]`), then generate the `Relationship` /
//! `RelationshipTarget` impl and the hooks that keep both ends in step.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::parse::ParseStream;
use syn::{Attribute, Data, DeriveInput, Fields, Ident, Member, Path, Token, Type};

use crate::errors::Errors;

/// Which end of a relationship the type is.
#[allow(clippy::large_enum_variant)] // one per derive input: size does not matter
pub(super) enum RelationshipEnd {
    /// `#[relationship(..)]`: the source's component.
    Source {
        target: Type,
        allow_self: bool,
        field: Member,
        others: Vec<Member>,
    },
    /// `#[relationship_target(..)]`: the target's list.
    Target {
        relationship: Type,
        linked_spawn: bool,
        field: Member,
        collection: Type,
        others: Vec<Member>,
    },
}

/// One parsed `key = Type` or bare `key`.
struct Arg {
    key: Ident,
    value: Option<Type>,
}

fn parse_arg_list(attr: &Attribute) -> syn::Result<Vec<Arg>> {
    attr.meta
        .require_list()?
        .parse_args_with(|input: ParseStream| {
            let mut args = Vec::new();
            while !input.is_empty() {
                let key: Ident = input.parse()?;
                let value = if input.peek(Token![=]) {
                    input.parse::<Token![=]>()?;
                    Some(input.parse::<Type>()?)
                } else {
                    None
                };
                args.push(Arg { key, value });
                if !input.is_empty() {
                    input.parse::<Token![,]>()?;
                }
            }
            Ok(args)
        })
}

/// Reads the relationship attributes of `input`; `None` when it has none.
pub(super) fn parse(input: &DeriveInput, errors: &mut Errors) -> Option<RelationshipEnd> {
    let source = input
        .attrs
        .iter()
        .find(|a| a.path().is_ident("relationship"));
    let target = input
        .attrs
        .iter()
        .find(|a| a.path().is_ident("relationship_target"));
    match (source, target) {
        (None, None) => None,
        (Some(_), Some(target)) => {
            errors.push_spanned(
                target,
                "a type cannot be both a `#[relationship(..)]` and a `#[relationship_target(..)]`",
            );
            None
        }
        (Some(attr), None) => parse_source(input, attr, errors),
        (None, Some(attr)) => parse_target(input, attr, errors),
    }
}

fn parse_source(
    input: &DeriveInput,
    attr: &Attribute,
    errors: &mut Errors,
) -> Option<RelationshipEnd> {
    let args = errors.take(parse_arg_list(attr))?;
    let mut target = None;
    let mut allow_self = false;
    for Arg { key, value } in args {
        match (key.to_string().as_str(), value) {
            ("relationship_target", Some(ty)) => target = Some(ty),
            ("allow_self_referential", None) => allow_self = true,
            _ => errors.push_spanned(
                &key,
                format!(
                    "unexpected `{key}` in `#[relationship(..)]`: expected \
                     `relationship_target = Type` and optionally `allow_self_referential`"
                ),
            ),
        }
    }
    let Some(target) = target else {
        errors.push_spanned(
            attr,
            "`#[relationship(..)]` needs the type listing the sources: \
             `#[relationship(relationship_target = Children)]`",
        );
        return None;
    };
    let (field, _, others) = linked_field(input, "relationship", errors)?;
    Some(RelationshipEnd::Source {
        target,
        allow_self,
        field,
        others,
    })
}

fn parse_target(
    input: &DeriveInput,
    attr: &Attribute,
    errors: &mut Errors,
) -> Option<RelationshipEnd> {
    let args = errors.take(parse_arg_list(attr))?;
    let mut relationship = None;
    let mut linked_spawn = false;
    for Arg { key, value } in args {
        match (key.to_string().as_str(), value) {
            ("relationship", Some(ty)) => relationship = Some(ty),
            ("linked_spawn", None) => linked_spawn = true,
            _ => errors.push_spanned(
                &key,
                format!(
                    "unexpected `{key}` in `#[relationship_target(..)]`: expected \
                     `relationship = Type` and optionally `linked_spawn`"
                ),
            ),
        }
    }
    let Some(relationship) = relationship else {
        errors.push_spanned(
            attr,
            "`#[relationship_target(..)]` needs the relationship it lists: \
             `#[relationship_target(relationship = ChildOf)]`",
        );
        return None;
    };
    let (field, collection, others) = linked_field(input, "relationship_target", errors)?;
    Some(RelationshipEnd::Target {
        relationship,
        linked_spawn,
        field,
        collection,
        others,
    })
}

/// The field holding the entity (or collection): the only field, or the
/// one marked `#[relationship]`; with its type and the other fields.
fn linked_field(
    input: &DeriveInput,
    attr: &str,
    errors: &mut Errors,
) -> Option<(Member, Type, Vec<Member>)> {
    let Data::Struct(data) = &input.data else {
        errors.push_spanned(
            &input.ident,
            format!("`#[{attr}(..)]` can only be derived for a struct"),
        );
        return None;
    };
    let fields: Vec<_> = match &data.fields {
        Fields::Unit => Vec::new(),
        fields => fields.iter().collect(),
    };
    let marked: Vec<usize> = (0..fields.len())
        .filter(|&i| {
            fields[i]
                .attrs
                .iter()
                .any(|a| a.path().is_ident("relationship"))
        })
        .collect();
    let index = match (fields.len(), marked.as_slice()) {
        (1, _) => 0,
        (_, [one]) => *one,
        _ => {
            errors.push_spanned(
                &input.ident,
                format!(
                    "`#[{attr}(..)]` needs a struct with one field, or with its entity field \
                     marked `#[relationship]`"
                ),
            );
            return None;
        }
    };
    let member = |i: usize| match &fields[i].ident {
        Some(ident) => Member::Named(ident.clone()),
        None => Member::Unnamed(syn::Index {
            index: i as u32,
            span: Span::call_site(),
        }),
    };
    let others = (0..fields.len())
        .filter(|&i| i != index)
        .map(member)
        .collect();
    Some((member(index), fields[index].ty.clone(), others))
}

/// The trait impl for the end `end` of `input`.
pub(super) fn generate_impl(
    end: &RelationshipEnd,
    input: &DeriveInput,
    krate: &Path,
) -> TokenStream {
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    match end {
        RelationshipEnd::Source {
            target,
            allow_self,
            field,
            others,
        } => quote! {
            #[automatically_derived]
            impl #impl_generics #krate::relationship::Relationship for #ident #ty_generics #where_clause {
                type RelationshipTarget = #target;
                const ALLOW_SELF_REFERENTIAL: bool = #allow_self;

                #[inline]
                fn get(&self) -> #krate::entity::Entity {
                    self.#field
                }

                #[inline]
                fn from(entity: #krate::entity::Entity) -> Self {
                    Self {
                        #(#others: ::core::default::Default::default(),)*
                        #field: entity,
                    }
                }

                #[inline]
                fn set_risky(&mut self, entity: #krate::entity::Entity) {
                    self.#field = entity;
                }
            }
        },
        RelationshipEnd::Target {
            relationship,
            linked_spawn,
            field,
            collection,
            others,
        } => quote! {
            #[automatically_derived]
            impl #impl_generics #krate::relationship::RelationshipTarget for #ident #ty_generics #where_clause {
                const LINKED_SPAWN: bool = #linked_spawn;
                type Relationship = #relationship;
                type Collection = #collection;

                #[inline]
                fn collection(&self) -> &Self::Collection {
                    &self.#field
                }

                #[inline]
                fn collection_mut_risky(&mut self) -> &mut Self::Collection {
                    &mut self.#field
                }

                #[inline]
                fn from_collection_risky(collection: Self::Collection) -> Self {
                    Self {
                        #(#others: ::core::default::Default::default(),)*
                        #field: collection,
                    }
                }
            }
        },
    }
}

/// The relationship's own hooks, by the key of the hook kind they join.
pub(super) fn hooks(end: &RelationshipEnd, krate: &Path) -> Vec<(&'static str, TokenStream)> {
    match end {
        RelationshipEnd::Source { .. } => vec![
            (
                "on_insert",
                quote!(<Self as #krate::relationship::Relationship>::on_insert),
            ),
            (
                "on_discard",
                quote!(<Self as #krate::relationship::Relationship>::on_discard),
            ),
        ],
        RelationshipEnd::Target { linked_spawn, .. } => {
            let mut hooks = vec![(
                "on_discard",
                quote!(<Self as #krate::relationship::RelationshipTarget>::on_discard),
            )];
            if *linked_spawn {
                hooks.push((
                    "on_despawn",
                    quote!(<Self as #krate::relationship::RelationshipTarget>::on_despawn),
                ));
            }
            hooks
        }
    }
}
