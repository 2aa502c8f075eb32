package bankops.services.registry

/** The registry's verdict on a candidate against a subject's latest version; `messages` when it gives reasons. */
final case class Compatibility(isCompatible: Boolean, messages: List[String])
