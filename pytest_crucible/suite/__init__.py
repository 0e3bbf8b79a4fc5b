"""The benchmark suite (layer 2): what a case is and where cases come from.

    case.py          case files (YAML / Python) to validated Case objects; tools and turns helpers
    grader_types.py  the grader types a case may name (a registry of the graders' modules) and their spec check
    families.py      seeded families: per-family random generators, solver programs
    code_family.py   building blocks of coding families
    haystack.py      generated long-context haystacks
    haystack_modes.py  the answers over many records (haystack_records, _joins, _events, _tallies)
    haystack_kit.py  shared parts of the long-context case files
    agent_loop.py    multi-turn runs over a case's simulated tools
    speed_plan.py    a speed case's measurement plan
    profiles.py      named selections of the suite (quick, standard, hard, ...)
    node_ids.py      stable node ids of cases that live in the installation
    importers/       public benchmarks read from the packages that ship them (HumanEval, BFCL)
"""
