-- Lets the beacon matcher read a tenant's lowest beacon threshold from the index alone: it bounds
-- how far the nearest-beacon scan of each store has to go (and skips it for tenants with no beacons).
CREATE INDEX beacons_tenant_threshold ON beacons (tenant_id, threshold);
