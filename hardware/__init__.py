"""The shuffler's hardware as data: the feed mechanism's timing
(mechanism.py), the power budget (power_budget.py) and the wiring tables
(wiring-*.md) the bring-up names a part's row from."""
