"""What every compiled bundle (Core ML, Core AI, OpenVINO) shares: where bundles live
(:mod:`.locations`), their manifests and checks (:mod:`.manifest`), the steps of a build
(:mod:`.building`: a temporary folder renamed into place when whole), the one error type
(:mod:`.errors`) and the teacher-forced comparison with the numpy reference (:mod:`.verify`).
Cheap to import.
"""
