#!/bin/bash
# Erlang (Debian erlang-base): 20,000 processes over 2-8 schedulers, each
# building lists and binaries, plus os:cmd (which forks erl_child_setup's
# children) and dirty CPU schedulers (term_to_binary compressed).
. "$(dirname "$0")/lib.sh"
cd "$(trial_scratch erlang)"
EVAL='
Self = self(),
N = 20000,
Pids = [spawn(fun() ->
          L = lists:seq(1, 50 + I rem 200),
          B = list_to_binary([integer_to_list(X) || X <- L]),
          T = ets:new(t, [set]), ets:insert(T, {I, B}),
          Self ! {done, byte_size(B)} end) || I <- lists:seq(1, N)],
Sum = lists:sum([receive {done, S} -> S end || _ <- Pids]),
Z = byte_size(erlang:term_to_binary(lists:seq(1, 200000), [compressed])),
Echo = os:cmd("echo from-os-cmd"),
io:format("sum ~p zlen ~p ~s", [Sum, Z, Echo]),
halt(0).'
trial erlang-procs -- erl -noshell -eval "$EVAL"
trial erlang-procs-S8 -- erl +S 8:8 +SDcpu 4 +A 16 -noshell -eval "$EVAL"
trial erlang-halt3 -- erl -noshell -eval 'io:format("x~n"), halt(3).'
trial erlang-crash -- erl -noshell -eval 'erlang:error(boom).'
