"""The notecite test suite."""

import pytest

# Assertions in shared helper modules get pytest's detailed failure messages too.
pytest.register_assert_rewrite("tests.helpers", "tests.store.contract")
