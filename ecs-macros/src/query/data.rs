//! `#[derive(QueryData)]`: the struct's `WorldQuery` and `QueryData` impls,
//! its item struct, and either its read-only twin (`#[query_data(mutable)]`)
//! or a `ReadOnlyQueryData` impl guarded by a check that every field only
//! reads.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::punctuated::Punctuated;
use syn::{DeriveInput, GenericParam, Generics, Meta, Path, Token};

use super::world_query::{state_struct, TermType, WorldQueryImpl};
use super::{all, state_lifetime, with_item_lifetimes, world_lifetime, QueryStruct, Shape};
use crate::attr::{self, SetOnce};
use crate::errors::Errors;

/// Expands `#[derive(QueryData)]` on `input`.
pub(crate) fn derive(input: &DeriveInput) -> syn::Result<TokenStream> {
    Ok(QueryDataInput::parse(input)?.generate())
}

/// Everything the generated code depends on.
struct QueryDataInput<'a> {
    query: QueryStruct<'a>,
    attr: QueryDataAttr,
}

/// `#[query_data(..)]` on the struct.
///
/// Each key is one arm in [`QueryDataAttr::parse`] and one name in
/// [`QueryDataAttr::KEYS`].
#[derive(Default)]
struct QueryDataAttr {
    /// `mutable`: fields may write, and a read-only twin is generated.
    mutable: bool,
    /// `derive(..)`: derives to put on the item structs.
    derives: Vec<Path>,
}

impl QueryDataAttr {
    /// The keys `#[query_data(..)]` knows, for the unknown-key message.
    const KEYS: &'static [&'static str] = &["mutable", "derive"];

    fn parse(attrs: &[syn::Attribute], errors: &mut Errors) -> Self {
        let mut mutable = SetOnce::default();
        let mut derives = SetOnce::default();
        for meta in attr::args_of(attrs, "query_data", errors) {
            let key = meta.path();
            if key.is_ident("mutable") {
                if errors
                    .take(attr::flag(&meta, "#[query_data(mutable)]"))
                    .is_some()
                {
                    mutable.set(key, (), errors);
                }
            } else if key.is_ident("derive") {
                if let Some(paths) = errors.take(derive_list(&meta)) {
                    derives.set(key, paths, errors);
                }
            } else {
                errors.push(attr::unknown_key("query_data", key, Self::KEYS));
            }
        }
        Self {
            mutable: mutable.get().is_some(),
            derives: derives.get().unwrap_or_default(),
        }
    }
}

/// The paths of `derive(Debug, ..)`.
fn derive_list(meta: &Meta) -> syn::Result<Vec<Path>> {
    let Meta::List(list) = meta else {
        return Err(syn::Error::new_spanned(
            meta,
            "expected `derive(Trait, ..)`: the derives to put on the item structs",
        ));
    };
    let paths = list.parse_args_with(Punctuated::<Path, Token![,]>::parse_terminated)?;
    Ok(paths.into_iter().collect())
}

/// The names of the generated types.
struct Names {
    item: Ident,
    state: Ident,
    fetch: Ident,
    read_only: Ident,
    read_only_item: Ident,
    read_only_fetch: Ident,
}

impl<'a> QueryDataInput<'a> {
    /// Reads and validates `input`, reporting every problem at once.
    fn parse(input: &'a DeriveInput) -> syn::Result<Self> {
        let mut errors = Errors::default();
        let attr = QueryDataAttr::parse(&input.attrs, &mut errors);
        let query = QueryStruct::parse(
            input,
            "QueryData",
            "write `'static` in the field types (`&'static T`): the generated item type has its own lifetime for what it borrows from the world",
            &mut errors,
        );
        for attrs in query.field_attrs() {
            attr::reject_misplaced(
                attrs,
                "query_data",
                "it configures the whole struct, so put it above the struct",
                &mut errors,
            );
        }
        errors.check()?;
        Ok(Self { query, attr })
    }

    fn generate(&self) -> TokenStream {
        let ident = self.query.ident;
        let names = Names {
            item: format_ident!("{}Item", ident),
            state: format_ident!("{}State", ident),
            fetch: format_ident!("{}Fetch", ident),
            read_only: format_ident!("{}ReadOnly", ident),
            read_only_item: format_ident!("{}ReadOnlyItem", ident),
            read_only_fetch: format_ident!("{}ReadOnlyFetch", ident),
        };
        let query = &self.query;
        let krate = &query.krate;
        let query_data = quote!(#krate::query::QueryData);

        let types = TermType::fields(query);
        let item_doc = format!(
            "What a query for [`{ident}`] yields for each entity: one field per field of `{ident}`."
        );
        let item_struct = self.item_struct(&names.item, ident, &types, &item_doc);
        let state_struct = state_struct(query, &names.state);
        let world_query = WorldQueryImpl {
            query,
            self_ident: ident,
            types: &types,
            fetch: &names.fetch,
            state: &names.state,
        }
        .generate();

        // With `mutable`, the twin is a struct of its own; without, the struct
        // is its own twin, once each field is checked to only read.
        let (read_only_ty, read_only) = if self.attr.mutable {
            let read_only_types: Vec<TermType> = types
                .iter()
                .map(|ty| TermType {
                    tokens: ty.item(&query_data, quote!(ReadOnly)),
                    span: ty.span,
                })
                .collect();
            let (_, ty_generics, _) = query.generics.split_for_impl();
            let read_only = &names.read_only;
            (
                quote!(#read_only #ty_generics),
                self.read_only_twin(&names, &read_only_types),
            )
        } else {
            let read_only = ReadOnlyParts {
                outer: TokenStream::new(),
                inner: self.read_only_impl_for_self(&types),
            };
            (quote!(Self), read_only)
        };
        let query_data_impl = self.query_data_impl(ident, &names.item, &types, &read_only_ty);
        let ReadOnlyParts {
            outer: read_only_outer,
            inner: read_only_inner,
        } = read_only;

        let read_fields = query.read_fields();
        quote! {
            #item_struct
            #read_only_outer

            const _: () = {
                #read_fields
                #state_struct
                #world_query
                #query_data_impl
                #read_only_inner
            };
        }
    }

    /// `struct {Name}Item<'w, 's, ..> { field: <Ty as ItemWithState<'w, 's>>::Item, .. }`
    /// (each field `Ty::Item<'w>`, with bevy's two lifetimes on the struct);
    /// for a struct without fields, `type {Name}Item<'w, 's, ..> = {of}<..>`:
    /// the item holds nothing, so it is the struct it is the item `of`.
    fn item_struct(&self, item: &Ident, of: &Ident, types: &[TermType], doc: &str) -> TokenStream {
        let krate = &self.query.krate;
        let (w, s) = (world_lifetime(), state_lifetime());
        let item_with_state = quote!(#krate::query::ItemWithState<#w, #s>);
        let generics = with_item_lifetimes(self.query.generics);
        if self.query.fields.is_empty() {
            let vis = self.query.vis;
            let (_, ty_generics, _) = self.query.generics.split_for_impl();
            let params = alias_params(&generics);
            return quote! {
                #[doc = #doc]
                #vis type #item<#(#params),*> = #of #ty_generics;
            };
        }
        let derives = &self.attr.derives;
        let derive = (!derives.is_empty()).then(|| quote!(#[derive(#(#derives),*)]));
        let field_types = TermType::items(types, &item_with_state, quote!(Item));
        self.struct_like_user_struct(
            quote! {
                #[doc = #doc]
                #derive
            },
            item,
            &generics,
            field_types,
        )
    }

    /// `#attrs struct #name #generics` with the user's struct's shape,
    /// visibility, where clause and fields (each with its docs and
    /// visibility), the field types being `field_types`.
    fn struct_like_user_struct(
        &self,
        attrs: TokenStream,
        name: &Ident,
        generics: &Generics,
        field_types: Vec<TokenStream>,
    ) -> TokenStream {
        let query = &self.query;
        let vis = query.vis;
        // With derives of the user's, a generic field's type is left to the
        // struct's own bounds, as bevy's derive does (see
        // `where_clause_for_derives`).
        let where_clause = if self.attr.derives.is_empty() {
            &query.where_clause
        } else {
            &query.where_clause_for_derives
        };
        let fields = query.fields.iter().zip(field_types).map(|(field, ty)| {
            let docs = &field.docs;
            let field_vis = field.vis;
            match &field.member {
                syn::Member::Named(name) => quote!(#(#docs)* #field_vis #name: #ty),
                syn::Member::Unnamed(_) => quote!(#(#docs)* #field_vis #ty),
            }
        });
        match query.shape {
            Shape::Named => quote! {
                #attrs
                #vis struct #name #generics #where_clause { #(#fields,)* }
            },
            Shape::Tuple => quote! {
                #attrs
                #vis struct #name #generics ( #(#fields,)* ) #where_clause;
            },
            Shape::Unit => quote! {
                #attrs
                #vis struct #name #generics #where_clause;
            },
        }
    }

    /// `QueryData` for `self_ident` (the struct or its read-only twin),
    /// yielding `item`.
    fn query_data_impl(
        &self,
        self_ident: &Ident,
        item: &Ident,
        types: &[TermType],
        read_only: &TokenStream,
    ) -> TokenStream {
        let query = &self.query;
        let krate = &query.krate;
        let query_data = quote!(#krate::query::QueryData);
        let w = world_lifetime();
        let (impl_generics, ty_generics, _) = query.generics.split_for_impl();
        let where_clause = &query.where_clause;
        // The item's state lifetime is the world's: it borrows only that.
        let mut item_args = vec![quote!(#w), quote!(#w)];
        item_args.extend(alias_args(query.generics));
        let is_read_only = all(TermType::items(types, &query_data, quote!(IS_READ_ONLY)));
        let members = query.fields.iter().map(|field| &field.member);
        let names = query.fields.iter().map(|field| &field.name);
        let fetch = TermType::items(types, &query_data, quote!(fetch));
        // A query without terms ignores its arguments.
        let allow_unused = query
            .fields
            .is_empty()
            .then(|| quote!(#[allow(unused_variables)]));
        quote! {
            // SAFETY: `IS_READ_ONLY` holds only if every field reads only, and
            // the read-only twin fetches the same components as `Self`, each
            // through its field type's read-only twin.
            #[automatically_derived]
            unsafe impl #impl_generics #query_data for #self_ident #ty_generics #where_clause {
                const IS_READ_ONLY: ::core::primitive::bool = #is_read_only;
                type ReadOnly = #read_only;
                type Item<#w> = #item<#(#item_args),*>;

                #[inline(always)]
                #allow_unused
                unsafe fn fetch<#w>(
                    fetch: &mut Self::Fetch<#w>,
                    entity: #krate::entity::Entity,
                    table_row: #krate::storage::TableRow,
                ) -> Self::Item<#w> {
                    #item {
                        // SAFETY: forwarded; the caller's guarantee for the
                        // struct's row covers each field.
                        #(#members: unsafe { #fetch(&mut fetch.#names, entity, table_row) },)*
                    }
                }
            }
        }
    }

    /// Without `mutable`: `ReadOnlyQueryData` for the struct itself, and a
    /// check, at each field, that the field only reads.
    fn read_only_impl_for_self(&self, types: &[TermType]) -> TokenStream {
        let query = &self.query;
        let krate = &query.krate;
        let ident = query.ident;
        let (impl_generics, ty_generics, _) = query.generics.split_for_impl();
        let where_clause = &query.where_clause;
        let read_only_query_data = quote!(#krate::query::ReadOnlyQueryData);
        let checks = types.iter().map(|ty| {
            let TermType { tokens, span } = ty;
            quote_spanned! {*span=> __ecs_assert_read_only::<#tokens>();}
        });
        quote! {
            // SAFETY: `__ecs_assert_fields_read_only` below compiles only if
            // every field is `ReadOnlyQueryData`, so the struct writes nothing.
            #[automatically_derived]
            unsafe impl #impl_generics #read_only_query_data for #ident #ty_generics #where_clause {}

            // Never called: type-checking it is the check.
            #[allow(dead_code)]
            fn __ecs_assert_fields_read_only #impl_generics () #where_clause {
                fn __ecs_assert_read_only<T: #read_only_query_data>() {}
                #(#checks)*
            }
        }
    }

    /// With `mutable`: the read-only twin struct, its item struct, and its
    /// `WorldQuery`, `QueryData` and `ReadOnlyQueryData` impls.
    fn read_only_twin(&self, names: &Names, read_only_types: &[TermType]) -> ReadOnlyParts {
        let query = &self.query;
        let krate = &query.krate;
        let ident = query.ident;
        let generics = query.generics;
        let (impl_generics, ty_generics, _) = generics.split_for_impl();
        let where_clause = &query.where_clause;
        let read_only = &names.read_only;

        let doc = format!(
            "The read-only twin of [`{ident}`]: each field is read-only, so a query for it \
             goes through a shared `&World` (`QueryState::iter`)."
        );
        let struct_def = self.struct_like_user_struct(
            quote! {
                #[doc = #doc]
                // Only ever named as a type, never built.
                #[allow(dead_code)]
            },
            read_only,
            generics,
            read_only_types.iter().map(|ty| ty.tokens.clone()).collect(),
        );
        let item_doc = format!(
            "What a read-only query for [`{ident}`] yields for each entity: \
             `{ident}`'s fields, each read-only."
        );
        let item_struct =
            self.item_struct(&names.read_only_item, read_only, read_only_types, &item_doc);

        let world_query = WorldQueryImpl {
            query,
            self_ident: read_only,
            types: read_only_types,
            fetch: &names.read_only_fetch,
            state: &names.state,
        }
        .generate();
        let query_data_impl = self.query_data_impl(
            read_only,
            &names.read_only_item,
            read_only_types,
            &quote!(Self),
        );
        let read_only_query_data = quote!(#krate::query::ReadOnlyQueryData);
        ReadOnlyParts {
            outer: quote! {
                #struct_def
                #item_struct
            },
            inner: quote! {
                #world_query
                #query_data_impl

                // SAFETY: each field is its field type's `ReadOnly`, which is
                // `ReadOnlyQueryData` by the bound on `QueryData::ReadOnly`.
                #[automatically_derived]
                unsafe impl #impl_generics #read_only_query_data for #read_only #ty_generics #where_clause {}
            },
        }
    }
}

/// `generics`' parameters as arguments (`'a, T, N`).
fn alias_args(generics: &Generics) -> Vec<TokenStream> {
    generic_params(generics, false)
}

/// `generics`' parameters without bounds, as a type alias declares them (it
/// would not enforce the bounds).
fn alias_params(generics: &Generics) -> Vec<TokenStream> {
    generic_params(generics, true)
}

/// Each of `generics`' parameters by name, a const one with its type when
/// `declare` (`const N: usize`), else as an argument (`N`).
fn generic_params(generics: &Generics, declare: bool) -> Vec<TokenStream> {
    generics
        .params
        .iter()
        .map(|param| match param {
            GenericParam::Lifetime(param) => {
                let lifetime = &param.lifetime;
                quote!(#lifetime)
            }
            GenericParam::Type(param) => {
                let ident = &param.ident;
                quote!(#ident)
            }
            GenericParam::Const(param) => {
                let ident = &param.ident;
                let ty = &param.ty;
                if declare {
                    quote!(const #ident: #ty)
                } else {
                    quote!(#ident)
                }
            }
        })
        .collect()
}

/// The read-only half of the generated code: items declared beside the
/// user's struct (`outer`), and hidden items and impls (`inner`).
struct ReadOnlyParts {
    outer: TokenStream,
    inner: TokenStream,
}

#[cfg(test)]
mod tests {
    use syn::parse_quote;

    use super::*;
    use crate::test_support::{expand, messages};

    #[test]
    fn read_only_struct_is_its_own_twin_and_checks_each_field() {
        let out = expand(
            derive,
            parse_quote!(
                struct Q {
                    a: &'static A,
                    e: Entity,
                }
            ),
        )
        .unwrap();
        assert!(out.contains("type ReadOnly = Self"), "{out}");
        assert!(
            out.contains("unsafe impl :: ecs :: query :: ReadOnlyQueryData for Q"),
            "{out}"
        );
        assert!(
            out.contains("__ecs_assert_read_only :: < & 'static A > ()"),
            "{out}"
        );
        assert!(
            out.contains("__ecs_assert_read_only :: < Entity > ()"),
            "{out}"
        );
        assert!(!out.contains("QReadOnly"), "{out}");
    }

    #[test]
    fn mutable_struct_gets_a_read_only_twin() {
        let out = expand(
            derive,
            parse_quote!(
                #[query_data(mutable)]
                pub struct Q {
                    pub a: &'static mut A,
                }
            ),
        )
        .unwrap();
        assert!(out.contains("type ReadOnly = QReadOnly"), "{out}");
        assert!(
            out.contains("pub struct QReadOnly where & 'static mut A : :: ecs :: query :: QueryData { pub a : < & 'static mut A as :: ecs :: query :: QueryData > :: ReadOnly , }"),
            "{out}"
        );
        assert!(
            out.contains("unsafe impl :: ecs :: query :: ReadOnlyQueryData for QReadOnly"),
            "{out}"
        );
        assert!(
            !out.contains("unsafe impl :: ecs :: query :: ReadOnlyQueryData for Q "),
            "{out}"
        );
        // The twin shares the state.
        assert_eq!(out.matches("type State = QState").count(), 2, "{out}");
    }

    #[test]
    fn item_struct_mirrors_the_fields() {
        let out = expand(
            derive,
            parse_quote!(
                pub(crate) struct Q<T: Component> {
                    /// Docs travel.
                    pub a: &'static T,
                    b: Entity,
                }
            ),
        )
        .unwrap();
        assert!(
            out.contains("pub (crate) struct QItem < 'w , 's , T : Component >"),
            "{out}"
        );
        assert!(
            out.contains("# [doc = r\" Docs travel.\"] pub a : < & 'static T as :: ecs :: query :: ItemWithState < 'w , 's > > :: Item"),
            "{out}"
        );
        assert!(
            out.contains("b : < Entity as :: ecs :: query :: ItemWithState < 'w , 's > > :: Item"),
            "{out}"
        );
        // The item the query yields borrows only the world.
        assert!(
            out.contains("type Item < 'w > = QItem < 'w , 'w , T >"),
            "{out}"
        );
    }

    #[test]
    fn tuple_struct_items_are_tuple_structs() {
        let out = expand(
            derive,
            parse_quote!(
                #[query_data(mutable, derive(Debug, Clone))]
                struct Q(&'static mut A, Entity);
            ),
        )
        .unwrap();
        assert!(
            out.contains(
                "# [derive (Debug , Clone)] struct QItem < 'w , 's > (< & 'static mut A as"
            ),
            "{out}"
        );
        assert!(out.contains("QItem { 0 : unsafe"), "{out}");
        assert!(out.contains("field_1 : < Entity as"), "{out}");
    }

    #[test]
    fn crate_path_replaces_the_root() {
        let out = expand(
            derive,
            parse_quote!(
                #[ecs(crate = ecs_core)]
                struct Q {
                    a: &'static A,
                }
            ),
        )
        .unwrap();
        assert!(!out.contains(":: ecs ::"), "{out}");
        assert!(
            out.contains("unsafe impl ecs_core :: query :: QueryData for Q"),
            "{out}"
        );
    }

    #[test]
    fn enums_and_unions_are_rejected() {
        assert_eq!(
            messages(derive, parse_quote!(
                enum E {
                    A(&'static A),
                }
            )),
            ["`QueryData` can only be derived for structs: the variants of an enum have different fields, and a query needs one fixed set of terms"]
        );
        assert_eq!(
            messages(derive, parse_quote!(union U { a: Entity })),
            ["`QueryData` can only be derived for structs: a union holds only one of its fields at a time"]
        );
    }

    #[test]
    fn empty_structs_are_their_own_items() {
        let out = expand(
            derive,
            parse_quote!(
                pub struct Q;
            ),
        )
        .unwrap();
        assert!(out.contains("pub type QItem < 'w , 's > = Q ;"), "{out}");
        assert!(
            out.contains("const IS_READ_ONLY : :: core :: primitive :: bool = true"),
            "{out}"
        );
        let out = expand(
            derive,
            parse_quote!(
                #[query_data(mutable, derive(Debug))]
                struct Q<const N: usize> {}
            ),
        )
        .unwrap();
        assert!(
            out.contains("type QItem < 'w , 's , const N : usize > = Q < N > ;"),
            "{out}"
        );
        assert!(
            out.contains("struct QReadOnly < const N : usize > { }"),
            "{out}"
        );
        assert!(
            out.contains("type QReadOnlyItem < 'w , 's , const N : usize > = QReadOnly < N > ;"),
            "{out}"
        );
    }

    #[test]
    fn every_problem_is_reported_at_once() {
        let input = parse_quote! {
            #[query_data(mutable = true, readonly, derive = Debug)]
            #[query_data(mutable, mutable)]
            struct Q<'w> {
                #[query_data(mutable)]
                a: &'w mut A,
            }
        };
        assert_eq!(
            messages(derive, input),
            [
                "`mutable` takes no value: write `#[query_data(mutable)]`",
                "unknown key `readonly` in `#[query_data(..)]`: expected one of `mutable`, `derive`",
                "expected `derive(Trait, ..)`: the derives to put on the item structs",
                "duplicate key `mutable`",
                "`QueryData` types must be 'static: remove the lifetime parameter `'w` and write `'static` in the field types (`&'static T`): the generated item type has its own lifetime for what it borrows from the world",
                "`#[query_data(..)]` is not allowed here: it configures the whole struct, so put it above the struct",
            ]
        );
    }
}
