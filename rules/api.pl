:- module(api, []).
/** <module> The one module the host calls (placeholder until the journal lands) */
