:- module(atc_volatility,
          [ volatility_class/3,           % ?Class, ?HazardPerSecond, ?Description
            default_volatility/2          % ?ClaimType, ?Class
          ]).

/** <module> Volatility classes: how fast each kind of state goes stale

Staleness is a probability, not a TTL. Each class has a hazard rate λ (changes per second) and
the chance that evidence of age t no longer describes the world is

    P(stale by t) = 1 - exp(-λ t)

so a deploy state observed an hour ago (λ = 1/3600) is stale with probability 0.63, while a
historical benchmark result (λ = 0) never goes stale. Rates are deliberately round: they are
priors to be replaced by rates estimated from the trace, not measurements.

The table is read by atc_tms:p_stale/3; add a class here and beliefs may use it at once. A belief
may also give its hazard directly, as a number per second, when its caller knows it better
than these classes do.
*/

%!  volatility_class(?Class:atom, ?HazardPerSecond:number, ?Description:string) is nondet.
%
%   Class changes on average once every 1/HazardPerSecond seconds.

volatility_class(immutable,        0.0,             "historical results and past decisions: never change").
volatility_class(static_docs,      6.43e-8,         "static documentation: about once in six months").
volatility_class(config_docs,      3.858e-7,        "configuration and compatibility documents: about once a month").
volatility_class(worker_finalized, 3.858e-7,        "state of a finished worker: about once a month").
volatility_class(package_release,  1.1574e-5,       "published package versions: about once a day").
volatility_class(deploy_state,     2.7778e-4,       "current deploy state: about once an hour").
volatility_class(worker_running,   1.6667e-3,       "state of a running worker: about every ten minutes").
volatility_class(live_health,      3.3333e-3,       "live service health: about every five minutes").
volatility_class(queue_depth,      3.3333e-2,       "active queue depth: about every thirty seconds").

%!  default_volatility(?ClaimType:atom, ?Class:atom) is nondet.
%
%   The class a belief of ClaimType gets when an inspection creates it and no earlier belief on
%   the same claim says otherwise.

default_volatility(live_system_state,   live_health).
default_volatility(deploy_state,        deploy_state).
default_volatility(dependency_version,  package_release).
default_volatility(compatibility,       config_docs).
default_volatility(queue_depth,         queue_depth).
default_volatility(worker_state,        worker_running).
default_volatility(historical_decision, immutable).
default_volatility(historical_result,   immutable).
default_volatility(documentation,       static_docs).
default_volatility(security_advisory,   package_release).
default_volatility(absence_claim,       deploy_state).
