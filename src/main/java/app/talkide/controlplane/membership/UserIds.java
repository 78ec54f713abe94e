package app.talkide.controlplane.membership;

/** User ids come from the identity provider ({@code sub}); they are stored as given, within sane bounds. */
final class UserIds {

    static final int MAX_LENGTH = 255;

    private UserIds() {}

    static void requireValid(String userId) {
        if (userId.isBlank() || userId.length() > MAX_LENGTH || userId.chars().anyMatch(Character::isISOControl)) {
            throw new InvalidUserId();
        }
    }
}
