//! The `WorldQuery` half both derives share: a hidden state struct, a
//! hidden fetch struct, and an impl whose every method visits the fields in
//! declaration order and delegates to each field type's own impl, as a
//! tuple of the field types would.

use proc_macro2::{Ident, Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::{all, with_world_lifetime, world_lifetime, QueryStruct};

/// A field type as one generated impl names it, with the span of the
/// user's field type so that errors about it point there.
pub(super) struct TermType {
    pub(super) tokens: TokenStream,
    pub(super) span: Span,
}

impl TermType {
    /// The user's own field types.
    pub(super) fn fields(query: &QueryStruct) -> Vec<Self> {
        query
            .fields
            .iter()
            .map(|field| {
                let ty = field.ty;
                Self {
                    tokens: quote!(#ty),
                    span: ty.span(),
                }
            })
            .collect()
    }

    /// `<Self as Trait>::item`, spanned at the field type.
    pub(super) fn item(&self, trait_path: &TokenStream, item: TokenStream) -> TokenStream {
        let Self { tokens, span } = self;
        quote_spanned! {*span=> <#tokens as #trait_path>::#item}
    }

    /// [`TermType::item`] for each of `types`, in field order.
    pub(super) fn items(
        types: &[Self],
        trait_path: &TokenStream,
        item: TokenStream,
    ) -> Vec<TokenStream> {
        types
            .iter()
            .map(|ty| ty.item(trait_path, item.clone()))
            .collect()
    }
}

/// The hidden struct holding each field's `WorldQuery::State`.
///
/// A query data struct and its read-only twin share it, as `QueryData`
/// requires (`ReadOnly: ReadOnlyQueryData<State = Self::State>`), so its
/// fields are always the user's field types' states.
pub(super) fn state_struct(query: &QueryStruct, state: &Ident) -> TokenStream {
    let krate = &query.krate;
    let world_query = quote!(#krate::query::WorldQuery);
    let vis = query.vis;
    let generics = query.generics;
    let where_clause = &query.where_clause;
    let names = query.fields.iter().map(|field| &field.name);
    let types = TermType::items(&TermType::fields(query), &world_query, quote!(State));
    quote! {
        #[doc(hidden)]
        #vis struct #state #generics #where_clause {
            #(#names: #types,)*
        }
    }
}

/// One `WorldQuery` impl, for the user's struct or its read-only twin.
pub(super) struct WorldQueryImpl<'q, 'a> {
    pub(super) query: &'q QueryStruct<'a>,
    /// The type the impl is for, with the user's generics.
    pub(super) self_ident: &'q Ident,
    /// The field types this impl delegates to, in field order.
    pub(super) types: &'q [TermType],
    /// The hidden fetch struct to generate for this impl.
    pub(super) fetch: &'q Ident,
    /// The state struct (see [`state_struct`]).
    pub(super) state: &'q Ident,
}

impl WorldQueryImpl<'_, '_> {
    /// The fetch struct, its `Clone` impl and the `WorldQuery` impl.
    pub(super) fn generate(&self) -> TokenStream {
        let fetch_struct = self.fetch_struct();
        let world_query_impl = self.world_query_impl();
        quote! {
            #fetch_struct
            #world_query_impl
        }
    }

    /// `#krate::query::WorldQuery`.
    fn world_query(&self) -> TokenStream {
        let krate = &self.query.krate;
        quote!(#krate::query::WorldQuery)
    }

    /// `<FieldType as WorldQuery>::item` for each field, in field order.
    fn items(&self, item: TokenStream) -> Vec<TokenStream> {
        TermType::items(self.types, &self.world_query(), item)
    }

    /// The hidden fetch and state structs' field names.
    fn names(&self) -> Vec<&Ident> {
        self.query.fields.iter().map(|field| &field.name).collect()
    }

    /// A query without terms ignores its arguments.
    fn allow_unused(&self) -> Option<TokenStream> {
        self.query
            .fields
            .is_empty()
            .then(|| quote!(#[allow(unused_variables)]))
    }

    /// The hidden fetch struct (each field's `WorldQuery::Fetch<'w>`) and
    /// its `Clone` impl.
    fn fetch_struct(&self) -> TokenStream {
        let Self { query, fetch, .. } = self;
        let vis = query.vis;
        let w = world_lifetime();
        let where_clause = &query.where_clause;
        let fetch_generics = with_world_lifetime(query.generics);
        let (fetch_impl_generics, fetch_ty_generics, _) = fetch_generics.split_for_impl();
        let names = self.names();
        let fetch_types = self.items(quote!(Fetch<#w>));
        let marker = quote!(::core::marker::PhantomData);
        quote! {
            #[doc(hidden)]
            #vis struct #fetch #fetch_generics #where_clause {
                #(#names: #fetch_types,)*
                __ecs_world: #marker<&#w ()>,
            }

            #[automatically_derived]
            impl #fetch_impl_generics ::core::clone::Clone for #fetch #fetch_ty_generics #where_clause {
                #[inline]
                fn clone(&self) -> Self {
                    Self {
                        #(#names: ::core::clone::Clone::clone(&self.#names),)*
                        __ecs_world: #marker,
                    }
                }
            }
        }
    }

    /// The `WorldQuery` impl: its types and `IS_DENSE` here, its methods
    /// from the functions below, in the trait's order.
    fn world_query_impl(&self) -> TokenStream {
        let Self {
            query,
            self_ident,
            fetch,
            state,
            ..
        } = self;
        let world_query = self.world_query();
        let w = world_lifetime();
        let (impl_generics, ty_generics, _) = query.generics.split_for_impl();
        let where_clause = &query.where_clause;
        let fetch_generics = with_world_lifetime(query.generics);
        let (_, fetch_ty_generics, _) = fetch_generics.split_for_impl();
        let is_dense = all(self.items(quote!(IS_DENSE)));
        let fetch_methods = self.fetch_methods();
        let table_column_methods = self.table_column_methods();
        let scope_table = self.scope_table();
        let state_methods = self.state_methods();
        quote! {
            // SAFETY: every method visits the fields in declaration order and
            // delegates to the field type's own `WorldQuery` impl with that
            // field's state and fetch, exactly as a tuple of the field types
            // does: the access recorded is the union of the fields' accesses,
            // an archetype matches only if every field matches it, and the
            // query is dense only if every field is.
            #[automatically_derived]
            unsafe impl #impl_generics #world_query for #self_ident #ty_generics #where_clause {
                type Fetch<#w> = #fetch #fetch_ty_generics;
                type State = #state #ty_generics;
                const IS_DENSE: ::core::primitive::bool = #is_dense;

                #fetch_methods
                #table_column_methods
                #scope_table
                #state_methods
            }
        }
    }

    /// `init_fetch`, `set_archetype` and `set_table`.
    fn fetch_methods(&self) -> TokenStream {
        let krate = &self.query.krate;
        let fetch = self.fetch;
        let w = world_lifetime();
        let names = self.names();
        let allow_unused = self.allow_unused();
        let init_fetch = self.items(quote!(init_fetch));
        let set_archetype = self.items(quote!(set_archetype));
        let set_table = self.items(quote!(set_table));
        let archetype = quote!(#krate::archetype::Archetype);
        let table = quote!(#krate::storage::Table);
        let tick = quote!(#krate::change_detection::Tick);
        let marker = quote!(::core::marker::PhantomData);
        quote! {
            #[inline]
            #allow_unused
            unsafe fn init_fetch<#w>(
                world: #krate::world::UnsafeWorldCell<#w>,
                state: &Self::State,
                last_run: #tick,
                this_run: #tick,
            ) -> Self::Fetch<#w> {
                #fetch {
                    // SAFETY: forwarded; the caller's guarantee for the
                    // struct covers each field.
                    #(#names: unsafe { #init_fetch(world, &state.#names, last_run, this_run) },)*
                    __ecs_world: #marker,
                }
            }

            #[inline]
            #allow_unused
            unsafe fn set_archetype<#w>(
                fetch: &mut Self::Fetch<#w>,
                state: &Self::State,
                archetype: &#w #archetype,
                table: &#w #table,
            ) {
                // SAFETY: forwarded; an archetype the struct matches is
                // matched by every field.
                #(unsafe { #set_archetype(&mut fetch.#names, &state.#names, archetype, table) };)*
            }

            #[inline]
            #allow_unused
            unsafe fn set_table<#w>(fetch: &mut Self::Fetch<#w>, state: &Self::State, table: &#w #table) {
                // SAFETY: forwarded; the struct is dense only if every
                // field is.
                #(unsafe { #set_table(&mut fetch.#names, &state.#names, table) };)*
            }
        }
    }

    /// `TABLE_COLUMNS`, `table_columns` and `set_table_cached`: each field's
    /// cached columns follow the previous field's.
    fn table_column_methods(&self) -> TokenStream {
        let krate = &self.query.krate;
        let w = world_lifetime();
        let names = self.names();
        let allow_unused = self.allow_unused();
        let table_columns_count = self.items(quote!(TABLE_COLUMNS));
        let table_columns = self.items(quote!(table_columns));
        let set_table_cached = self.items(quote!(set_table_cached));
        let table = quote!(#krate::storage::Table);
        quote! {
            const TABLE_COLUMNS: ::core::primitive::usize = 0 #(+ #table_columns_count)*;

            #[inline]
            #allow_unused
            fn table_columns(
                state: &Self::State,
                table: &#table,
                out: &mut ::std::vec::Vec<::core::primitive::u32>,
            ) {
                #(#table_columns(&state.#names, table, out);)*
            }

            #[inline(always)]
            #[allow(unused_assignments, unused_mut, unused_variables)]
            unsafe fn set_table_cached<#w>(
                fetch: &mut Self::Fetch<#w>,
                state: &Self::State,
                table: &#w #table,
                columns: &[::core::primitive::u32],
            ) {
                let mut at: ::core::primitive::usize = 0;
                #(
                    // SAFETY: forwarded; each field's slots follow the
                    // previous field's, within the struct's.
                    unsafe {
                        #set_table_cached(&mut fetch.#names, &state.#names, table, columns.get_unchecked(at..))
                    };
                    at += #table_columns_count;
                )*
            }
        }
    }

    /// `scope_table`, through the fields as right-nested pairs,
    /// `(T0, (T1, (.., ())))`: pairs scope any number of fields (tuples
    /// implement `WorldQuery` up to 16 elements only).
    fn scope_table(&self) -> TokenStream {
        let krate = &self.query.krate;
        let fetch = self.fetch;
        let world_query = self.world_query();
        let w = world_lifetime();
        let names = self.names();
        let nested = |items: Vec<TokenStream>| {
            items
                .into_iter()
                .rev()
                .fold(quote!(()), |rest, item| quote!((#item, #rest)))
        };
        let nested_types = nested(self.types.iter().map(|ty| ty.tokens.clone()).collect());
        let nested_fetch = nested(names.iter().map(|name| quote!(fetch.#name)).collect());
        let nested_names = nested(names.iter().map(|name| quote!(#name)).collect());
        let marker = quote!(::core::marker::PhantomData);
        quote! {
            #[inline(always)]
            unsafe fn scope_table<#w, __K: #krate::query::TableWalk<#w, Self>>(
                fetch: Self::Fetch<#w>,
                rows: ::core::ops::Range<::core::primitive::usize>,
                walk: __K,
            ) -> __K::Output {
                // SAFETY: forwarded; the struct's fetch is its fields'
                // fetches, which the nested pairs of the field types
                // scope field by field; `rebuild` puts each scoped
                // field fetch back in its own field.
                unsafe {
                    <#nested_types as #world_query>::scope_table(
                        #nested_fetch,
                        rows,
                        #krate::query::ScopeFields::<Self, __K, _>::new(
                            walk,
                            |#nested_names| #fetch { #(#names,)* __ecs_world: #marker },
                        ),
                    )
                }
            }
        }
    }

    /// `update_component_access`, `init_state`, `get_state` and
    /// `matches_component_set`.
    fn state_methods(&self) -> TokenStream {
        let krate = &self.query.krate;
        let state = self.state;
        let world_query = self.world_query();
        let names = self.names();
        let allow_unused = self.allow_unused();
        let update_component_access = self.items(quote!(update_component_access));
        let init_state = self.items(quote!(init_state));
        let get_state = self.items(quote!(get_state));
        let matches_component_set = all(self.types.iter().zip(&names).map(|(ty, name)| {
            let matches = ty.item(&world_query, quote!(matches_component_set));
            quote!(#matches(&state.#name, set_contains_id))
        }));
        quote! {
            #allow_unused
            fn update_component_access(state: &Self::State, access: &mut #krate::query::FilteredAccess) {
                #(#update_component_access(&state.#names, access);)*
            }

            #allow_unused
            fn init_state(world: &mut #krate::world::World) -> Self::State {
                #state {
                    #(#names: #init_state(world),)*
                }
            }

            #allow_unused
            fn get_state(
                components: &#krate::component::Components,
            ) -> ::core::option::Option<Self::State> {
                ::core::option::Option::Some(#state {
                    #(#names: #get_state(components)?,)*
                })
            }

            #allow_unused
            fn matches_component_set(
                state: &Self::State,
                set_contains_id: &impl ::core::ops::Fn(#krate::component::ComponentId) -> ::core::primitive::bool,
            ) -> ::core::primitive::bool {
                #matches_component_set
            }
        }
    }
}
