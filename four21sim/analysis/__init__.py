"""What researchers call on top of the engine and the solvers: tournaments on common
random numbers (:mod:`.tournament`), approximate equilibria for large tables
(:mod:`.approx`), and where each habit loses against optimal play (:mod:`.habits`)."""
