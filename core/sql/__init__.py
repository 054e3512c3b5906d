"""All SQL of the project, one module per concept; nothing outside this package writes SQL.

Every statement takes parameters; none is built from user text.
"""
