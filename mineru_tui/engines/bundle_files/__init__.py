"""What every compiled bundle (Core ML, OpenVINO) shares: where bundles live (:mod:`.locations`),
their manifests and checks (:mod:`.manifest`), the one error type (:mod:`.errors`) and the
teacher-forced comparison with the numpy reference (:mod:`.verify`). Cheap to import.
"""
