//! `#[derive(MapEntities)]`: maps every field marked `#[entities]`.
//!
//! ```text
//! struct S { #[entities] a: Entity, b: u32 }   ─▶ self.a.map_entities(mapper)
//! enum E { V(#[entities] Entity, u32), W }     ─▶ match self { Self::V { 0: x, .. } => x.map_entities(mapper), _ => {} }
//! ```

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::{Data, DeriveInput, Fields, Meta};

use crate::attr::EcsAttr;
use crate::component::clone::marked_fields_body;
use crate::errors::Errors;

/// Expands `#[derive(MapEntities)]` on `input`.
pub(crate) fn derive(input: &DeriveInput) -> syn::Result<TokenStream> {
    let mut errors = Errors::default();
    let EcsAttr { krate } = EcsAttr::parse(&input.attrs, &mut errors);
    validate(input, &mut errors);
    errors.check()?;

    let this = format_ident!("__ecs_this");
    let body = marked_fields_body(&input.data, &this, &krate).unwrap_or_default();
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    Ok(quote! {
        #[automatically_derived]
        impl #impl_generics #krate::entity::MapEntities for #ident #ty_generics #where_clause {
            fn map_entities<__EcsMapper: #krate::entity::EntityMapper>(
                &mut self,
                mapper: &mut __EcsMapper,
            ) {
                let #this = self;
                let _ = &#this;
                #body
            }
        }
    })
}

/// Unions cannot say which field is live, and `#[entities]` takes no
/// arguments.
fn validate(input: &DeriveInput, errors: &mut Errors) {
    let fields: Vec<&Fields> = match &input.data {
        Data::Struct(data) => vec![&data.fields],
        Data::Enum(data) => data.variants.iter().map(|v| &v.fields).collect(),
        Data::Union(data) => {
            errors.push_spanned(
                data.union_token,
                "`MapEntities` cannot be derived for a union: which field holds an entity is not known",
            );
            return;
        }
    };
    for attr in fields
        .into_iter()
        .flat_map(|f| f.iter())
        .flat_map(|f| &f.attrs)
        .filter(|a| a.path().is_ident("entities"))
    {
        if !matches!(attr.meta, Meta::Path(_)) {
            errors.push_spanned(&attr.meta, "`#[entities]` takes no arguments");
        }
    }
}

#[cfg(test)]
mod tests {
    use syn::parse_quote;

    use super::*;

    #[test]
    fn maps_marked_struct_fields_only() {
        let input = parse_quote!(
            struct S<T> {
                #[entities]
                a: Entity,
                b: T,
            }
        );
        let out = derive(&input).unwrap().to_string();
        assert!(
            out.contains("impl < T > :: ecs :: entity :: MapEntities for S < T >"),
            "{out}"
        );
        assert!(
            out.contains("map_entities (& mut __ecs_this . a , mapper)"),
            "{out}"
        );
        assert!(!out.contains("__ecs_this . b"), "{out}");
    }

    #[test]
    fn unions_and_arguments_are_rejected() {
        let input = parse_quote!(
            union U {
                a: u32,
            }
        );
        let error = derive(&input).unwrap_err().to_string();
        assert!(error.contains("union"), "{error}");
        let input = parse_quote!(
            struct S(#[entities(all)] Entity);
        );
        let error = derive(&input).unwrap_err().to_string();
        assert_eq!(error, "`#[entities]` takes no arguments");
    }
}
