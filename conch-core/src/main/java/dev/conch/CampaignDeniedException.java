package dev.conch;

/** The gate refused to let this candidate campaign. */
public class CampaignDeniedException extends ConchException {

  /** Creates the exception with the gate's reason. */
  public CampaignDeniedException(String office, String reason) {
    super("campaign for office '" + office + "' denied: " + reason);
  }
}
