//! The cloning side of `#[derive(Component)]`: `clone_behavior = ..`,
//! `map_entities` and the `#[entities]` field attribute.
//!
//! ```text
//! #[component(clone_behavior = Ignore)]   ─▶ fn clone_behavior() { ComponentCloneBehavior::Ignore }
//! (nothing)                               ─▶ fn clone_behavior() { Clone types: clone::<Self>() }
//! #[entities] field / relationship field  ─▶ fn map_entities(this, mapper) { field.map_entities(mapper) }
//! #[component(map_entities)]              ─▶ fn map_entities(this, mapper) { <Self as MapEntities>::.. }
//! ```

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::{Attribute, Data, Expr, Fields, Member, Meta, Path};

use super::relationship::RelationshipEnd;
use crate::errors::Errors;

/// `map_entities` in `#[component(..)]`.
pub(super) enum MapEntitiesAttr {
    /// The bare key: the type's own `MapEntities` impl.
    OwnImpl,
    /// `map_entities = path`: a `fn(&mut Self, &mut impl EntityMapper)`.
    Path(Path),
}

impl MapEntitiesAttr {
    /// Reads the `map_entities` key `meta`.
    pub(super) fn parse(meta: &Meta) -> syn::Result<Self> {
        match meta {
            Meta::Path(_) => Ok(Self::OwnImpl),
            Meta::NameValue(nv) => match &nv.value {
                Expr::Path(path) if path.qself.is_none() => Ok(Self::Path(path.path.clone())),
                other => Err(syn::Error::new_spanned(
                    other,
                    "expected `map_entities = path::to::function` or the bare key `map_entities` \
                     (the type's own `MapEntities` impl)",
                )),
            },
            Meta::List(_) => Err(syn::Error::new_spanned(
                meta,
                "expected `map_entities = path::to::function` or the bare key `map_entities`",
            )),
        }
    }
}

/// `clone_behavior = ..`: the expression, read as a variant or associated
/// function of `ComponentCloneBehavior` (`Ignore`, `Custom(f)`,
/// `clone::<Self>()`).
pub(super) fn parse_clone_behavior(meta: &Meta) -> syn::Result<Expr> {
    match meta {
        Meta::NameValue(nv) => Ok(nv.value.clone()),
        _ => Err(syn::Error::new_spanned(
            meta,
            "expected `clone_behavior = Ignore`, `clone_behavior = Custom(path::to::function)` \
             or `clone_behavior = clone::<Self>()`",
        )),
    }
}

/// Refuses `clone_behavior` on a relationship target, which clones
/// through its relationship.
pub(super) fn check_clone_behavior(
    behavior: Option<&Expr>,
    relationship: Option<&RelationshipEnd>,
    errors: &mut Errors,
) {
    if let (Some(behavior), Some(RelationshipEnd::Target { .. })) = (behavior, relationship) {
        errors.push(syn::Error::new_spanned(
            behavior,
            "a relationship target already has its own clone behavior (its sources are cloned \
             through their relationship): remove `clone_behavior = ..`",
        ));
    }
}

/// Records an error for each `#[entities(..)]` or `#[entities = ..]`: the
/// attribute takes no arguments.
pub(super) fn check_entities_attrs(attrs: &[Attribute], errors: &mut Errors) {
    for attr in attrs.iter().filter(|a| a.path().is_ident("entities")) {
        if !matches!(attr.meta, Meta::Path(_)) {
            errors.push_spanned(
                attr,
                "`#[entities]` takes no arguments: it marks a field whose entities are remapped \
                 when the component is cloned",
            );
        }
    }
}

/// `fn clone_behavior`.
pub(super) fn generate_clone_behavior(
    behavior: Option<&Expr>,
    relationship: Option<&RelationshipEnd>,
    krate: &Path,
) -> TokenStream {
    let body = if let Some(RelationshipEnd::Target { .. }) = relationship {
        quote! {
            #krate::component::ComponentCloneBehavior::Custom(
                #krate::entity::clone_relationship_target::<Self>
            )
        }
    } else if let Some(behavior) = behavior {
        quote!(#krate::component::ComponentCloneBehavior::#behavior)
    } else {
        // Autoderef specialisation: the `&Spec<Self>` impl exists only for
        // `Clone` types and is found first.
        quote! {
            use #krate::component::{DefaultCloneBehaviorBase, DefaultCloneBehaviorViaClone};
            (&&#krate::component::DefaultCloneBehaviorSpecialization::<Self>::default())
                .default_clone_behavior()
        }
    };
    quote! {
        fn clone_behavior() -> #krate::component::ComponentCloneBehavior {
            #body
        }
    }
}

/// `fn map_entities`, or nothing when no field holds entities to map.
pub(super) fn generate_map_entities(
    data: &Data,
    attr: Option<&MapEntitiesAttr>,
    relationship: Option<&RelationshipEnd>,
    krate: &Path,
) -> TokenStream {
    let this = format_ident!("__ecs_this");
    let body = match attr {
        Some(MapEntitiesAttr::OwnImpl) => {
            quote!(<Self as #krate::entity::MapEntities>::map_entities(#this, mapper);)
        }
        Some(MapEntitiesAttr::Path(path)) => quote!(#path(#this, mapper);),
        None => match fields_body(data, relationship, &this, krate) {
            Some(body) => body,
            None => return TokenStream::new(),
        },
    };
    quote! {
        fn map_entities<__EcsMapper: #krate::entity::EntityMapper>(
            #this: &mut Self,
            mapper: &mut __EcsMapper,
        ) {
            #body
        }
    }
}

fn is_marked(attrs: &[Attribute]) -> bool {
    attrs.iter().any(|a| a.path().is_ident("entities"))
}

fn member(index: usize, ident: Option<&syn::Ident>) -> Member {
    ident.map_or(Member::from(index), |i| Member::Named(i.clone()))
}

/// The calls mapping each field marked `#[entities]` in `this`, `None`
/// if none is marked (what `#[derive(MapEntities)]` generates).
pub(crate) fn marked_fields_body(
    data: &Data,
    this: &syn::Ident,
    krate: &Path,
) -> Option<TokenStream> {
    fields_body(data, None, this, krate)
}

/// The calls mapping each marked field (and a relationship's entity).
fn fields_body(
    data: &Data,
    relationship: Option<&RelationshipEnd>,
    this: &syn::Ident,
    krate: &Path,
) -> Option<TokenStream> {
    let map = quote!(#krate::entity::MapEntities::map_entities);
    match data {
        Data::Struct(data) => {
            let linked = match relationship {
                Some(RelationshipEnd::Source { field, .. }) => Some(field),
                _ => None,
            };
            let members: Vec<Member> = data
                .fields
                .iter()
                .enumerate()
                .map(|(i, f)| (member(i, f.ident.as_ref()), &f.attrs))
                .filter(|(m, attrs)| is_marked(attrs) || Some(m) == linked)
                .map(|(m, _)| m)
                .collect();
            (!members.is_empty()).then(|| quote!(#(#map(&mut #this.#members, mapper);)*))
        }
        Data::Enum(data) => {
            let arms: Vec<TokenStream> = data
                .variants
                .iter()
                .filter_map(|variant| {
                    let members: Vec<Member> = variant
                        .fields
                        .iter()
                        .enumerate()
                        .filter(|(_, f)| is_marked(&f.attrs))
                        .map(|(i, f)| member(i, f.ident.as_ref()))
                        .collect();
                    if members.is_empty() {
                        return None;
                    }
                    let bindings: Vec<syn::Ident> = (0..members.len())
                        .map(|i| syn::Ident::new(&format!("__ecs_field{i}"), Span::call_site()))
                        .collect();
                    let ident = &variant.ident;
                    let rest = match variant.fields {
                        Fields::Unit => TokenStream::new(),
                        _ => quote!(..),
                    };
                    Some(quote! {
                        Self::#ident { #(#members: #bindings,)* #rest } => {
                            #(#map(#bindings, mapper);)*
                        }
                    })
                })
                .collect();
            (!arms.is_empty()).then(|| {
                quote! {
                    #[allow(unreachable_patterns)]
                    match #this {
                        #(#arms)*
                        _ => {}
                    }
                }
            })
        }
        Data::Union(_) => None,
    }
}
