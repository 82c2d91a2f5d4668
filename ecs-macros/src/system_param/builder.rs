//! `#[system_param(builder)]`: a `<Name>Builder` struct with one builder
//! per field, which builds the derived parameter's state field by field.
//!
//! ```text
//! #[derive(SystemParam)]
//! #[system_param(builder)]
//! pub struct Movers<'w, 's> { query: Query<'w, 's, D>, time: Res<'w, Time> }
//!
//! pub struct MoversBuilder<Bquery, Btime> { pub query: Bquery, pub time: Btime }
//! unsafe impl<'w, 's, Bquery: SystemParamBuilder<Query<'static, 'static, D>>, Btime: SystemParamBuilder<Res<'static, Time>>>
//!     SystemParamBuilder<Movers<'w, 's>> for MoversBuilder<Bquery, Btime>
//! ```

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::{Attribute, GenericParam, Ident, Member, Meta};

use super::{SystemParamInput, STATE_STRUCT};
use crate::attr::{args_of, flag, unknown_key};
use crate::errors::Errors;

/// Whether `attrs` hold `#[system_param(builder)]`; any other key is an
/// error.
pub(super) fn wanted(attrs: &[Attribute], errors: &mut Errors) -> bool {
    let mut builder = false;
    for meta in args_of(attrs, "system_param", errors) {
        if meta.path().is_ident("builder") {
            builder |= errors
                .take(flag(&meta, "#[system_param(builder)]"))
                .is_some();
        } else {
            let path = match &meta {
                Meta::Path(path) => path,
                Meta::List(list) => &list.path,
                Meta::NameValue(name_value) => &name_value.path,
            };
            errors.push(unknown_key("system_param", path, &["builder"]));
        }
    }
    builder
}

impl SystemParamInput<'_> {
    /// `<Name>Builder`, at the struct's name.
    fn builder_name(&self) -> Ident {
        format_ident!("{}Builder", self.ident, span = self.ident.span())
    }

    /// The builder's type parameter for each field: `B` and the field's
    /// name or index, as bevy's.
    fn builder_params(&self) -> Vec<Ident> {
        self.fields
            .iter()
            .map(|field| match &field.member {
                Member::Named(ident) => format_ident!("B{}", ident),
                Member::Unnamed(index) => format_ident!("B{}", index.index),
            })
            .collect()
    }

    /// The builder struct, with the parameter's visibility: named fields
    /// for a named struct, a tuple for a tuple struct.
    pub(super) fn builder_struct(&self) -> TokenStream {
        let vis = self.vis;
        let name = self.builder_name();
        let params = self.builder_params();
        let doc = format!(
            "Builds a [`{}`] parameter field by field: one \
             `SystemParamBuilder` per field.",
            self.ident
        );
        let field_docs = self.fields.iter().map(|field| match &field.member {
            Member::Named(ident) => format!("The builder of the field `{ident}`."),
            Member::Unnamed(index) => format!("The builder of the field `{}`.", index.index),
        });
        let generics =
            (!params.is_empty()).then(|| quote!(<#(#[allow(non_camel_case_types)] #params,)*>));
        let named =
            matches!(self.fields.first(), Some(field) if matches!(field.member, Member::Named(_)));
        if named {
            let members = self.fields.iter().map(|field| &field.member);
            quote! {
                #[doc = #doc]
                #[derive(Debug, Clone, Default)]
                #vis struct #name #generics {
                    #(#[doc = #field_docs] #vis #members: #params,)*
                }
            }
        } else if params.is_empty() {
            quote! {
                #[doc = #doc]
                #[derive(Debug, Clone, Copy, Default)]
                #vis struct #name;
            }
        } else {
            quote! {
                #[doc = #doc]
                #[derive(Debug, Clone, Default)]
                #vis struct #name #generics (#(#[doc = #field_docs] #vis #params,)*);
            }
        }
    }

    /// `SystemParamBuilder<Name>` for the builder: each field's builder
    /// builds that field's state, in declaration order, with the same
    /// meta, so the fields' accesses are recorded (and checked) as the
    /// derived `init_state` records them.
    pub(super) fn builder_impl(&self, where_clause: &TokenStream) -> TokenStream {
        let krate = &self.krate;
        let name = self.builder_name();
        let params = self.builder_params();
        let system_param = self.system_param();
        let param_builder = quote!(#krate::system::SystemParamBuilder);
        let mut generics = self.generics.clone();
        // Bounded by the field's `'static` form, whose state the derived
        // state holds: the compiler cannot always see that the field type's
        // state is the same type.
        for (param, field) in params.iter().zip(&self.fields) {
            let ty = &field.static_ty;
            generics.params.push(GenericParam::Type(syn::parse_quote!(
                #param: #param_builder<#ty>
            )));
        }
        let (impl_generics, _, _) = generics.split_for_impl();
        let (_, ty_generics, _) = self.generics.split_for_impl();
        let ident = self.ident;
        let state_struct = Ident::new(STATE_STRUCT, proc_macro2::Span::call_site());
        let locals: Vec<Ident> = (0..params.len())
            .map(|i| format_ident!("__ecs_builder_{}", i))
            .collect();
        let members = self.fields.iter().map(|field| &field.member);
        let tys = self.fields.iter().map(|field| &field.static_ty);
        let allow_unused = self
            .fields
            .is_empty()
            .then(|| quote!(#[allow(unused_variables, clippy::unused_unit)]));
        quote! {
            // SAFETY: each field's state is built by a builder of that
            // field's parameter, which records the field's access in
            // `meta` (panicking on a conflict), exactly as the derived
            // `init_state` builds it.
            #[automatically_derived]
            #[allow(non_camel_case_types)]
            unsafe impl #impl_generics #param_builder<#ident #ty_generics> for #name<#(#params,)*> #where_clause {
                #allow_unused
                fn build(
                    self,
                    world: &mut #krate::world::World,
                    meta: &mut #krate::system::SystemMeta,
                ) -> <#ident #ty_generics as #system_param>::State {
                    let #name { #(#members: #locals,)* } = self;
                    #state_struct {
                        state: (#(<_ as #param_builder<#tys>>::build(#locals, world, meta),)*),
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use syn::parse_quote;

    use super::super::derive;
    use crate::test_support::{expand, messages};

    #[test]
    fn builder_has_one_field_per_param_field() {
        let out = expand(
            derive,
            parse_quote!(
                #[system_param(builder)]
                pub struct Movers<'w, 's> {
                    query: Query<'w, 's, &'static A>,
                    time: Res<'w, Time>,
                }
            ),
        )
        .unwrap();
        assert!(
            out.contains("pub struct MoversBuilder < # [allow (non_camel_case_types)] Bquery , # [allow (non_camel_case_types)] Btime , >"),
            "{out}"
        );
        assert!(out.contains("pub query : Bquery , "), "{out}");
        assert!(
            out.contains(
                "Bquery : :: ecs :: system :: SystemParamBuilder < Query < 'static , 'static , & 'static A > >"
            ),
            "{out}"
        );
        assert!(
            out.contains(
                ":: ecs :: system :: SystemParamBuilder < Movers < 'w , 's > > for MoversBuilder < Bquery , Btime , >"
            ),
            "{out}"
        );
        assert!(
            out.contains(
                "let MoversBuilder { query : __ecs_builder_0 , time : __ecs_builder_1 , } = self ;"
            ),
            "{out}"
        );
    }

    #[test]
    fn tuple_and_unit_structs_get_tuple_and_unit_builders() {
        let out = expand(
            derive,
            parse_quote!(
                #[system_param(builder)]
                struct Pair<'s>(Local<'s, u8>, Local<'s, u16>);
            ),
        )
        .unwrap();
        assert!(
            out.contains("struct PairBuilder < # [allow (non_camel_case_types)] B0 , # [allow (non_camel_case_types)] B1 , > (# [doc = \"The builder of the field `0`.\"] B0 , # [doc = \"The builder of the field `1`.\"] B1 ,) ;"),
            "{out}"
        );
        assert!(
            out.contains(
                "let PairBuilder { 0 : __ecs_builder_0 , 1 : __ecs_builder_1 , } = self ;"
            ),
            "{out}"
        );
        let out = expand(
            derive,
            parse_quote!(
                #[system_param(builder)]
                struct Nothing;
            ),
        )
        .unwrap();
        assert!(out.contains("struct NothingBuilder ;"), "{out}");
    }

    #[test]
    fn without_the_attribute_there_is_no_builder() {
        let out = expand(
            derive,
            parse_quote!(
                struct Movers<'w> {
                    time: Res<'w, Time>,
                }
            ),
        )
        .unwrap();
        assert!(!out.contains("MoversBuilder"), "{out}");
    }

    #[test]
    fn unknown_keys_and_values_are_reported() {
        assert_eq!(
            messages(
                derive,
                parse_quote!(
                    #[system_param(bulider, builder = "yes")]
                    struct P<'w> {
                        time: Res<'w, Time>,
                    }
                )
            ),
            [
                "unknown key `bulider` in `#[system_param(..)]`: expected `builder`",
                "`builder` takes no value: write `#[system_param(builder)]`",
            ]
        );
    }
}
